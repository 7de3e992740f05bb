// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {BasePaymaster} from "@account-abstraction/contracts-v08/core/BasePaymaster.sol";
import {_packValidationData} from "@account-abstraction/contracts-v08/core/Helpers.sol";
import {IEntryPoint} from "@account-abstraction/contracts-v08/interfaces/IEntryPoint.sol";
import {PackedUserOperation} from "@account-abstraction/contracts-v08/interfaces/PackedUserOperation.sol";
import {ECDSA} from "@openzeppelin/contracts/utils/cryptography/ECDSA.sol";
import {MessageHashUtils} from "@openzeppelin/contracts/utils/cryptography/MessageHashUtils.sol";

/// @notice The service's paymaster for EntryPoint v0.8 (EIP-7702 accounts): it pays for an operation the service's
/// gas-tank key approved. `paymasterAndData` = paymaster (20) ‖ verification gas (16) ‖ postOp gas (16) ‖
/// abi.encode(uint48 validUntil, uint48 validAfter) ‖ 65-byte signature, the key signing EIP-191 over
/// `approvalHash`. Layout and hash are the ones of the service's v0.7 paymaster, so one key and one hash function
/// (chalicelib/evm/aa/packing.py) serve both; the hash covers every gas limit, so the key signs after estimation.
contract GasTankPaymaster is BasePaymaster {
    uint256 private constant TIMES_OFFSET = 52; // UserOperationLib.PAYMASTER_DATA_OFFSET
    uint256 private constant SIGNATURE_OFFSET = TIMES_OFFSET + 64;

    address public immutable approver;

    constructor(IEntryPoint entryPoint_, address approver_) BasePaymaster(entryPoint_) {
        approver = approver_;
    }

    /// @notice What the gas-tank key signs (EIP-191) for `op`, valid from `validAfter` until `validUntil`.
    function approvalHash(PackedUserOperation calldata op, uint48 validUntil, uint48 validAfter)
        public
        view
        returns (bytes32)
    {
        return keccak256(
            abi.encode(
                op.sender,
                op.nonce,
                keccak256(op.initCode),
                keccak256(op.callData),
                op.accountGasLimits,
                uint256(bytes32(op.paymasterAndData[20:TIMES_OFFSET])),
                op.preVerificationGas,
                op.gasFees,
                block.chainid,
                address(this),
                validUntil,
                validAfter
            )
        );
    }

    function _validatePaymasterUserOp(PackedUserOperation calldata op, bytes32, uint256)
        internal
        view
        override
        returns (bytes memory context, uint256 validationData)
    {
        (uint48 validUntil, uint48 validAfter) =
            abi.decode(op.paymasterAndData[TIMES_OFFSET:SIGNATURE_OFFSET], (uint48, uint48));
        bytes calldata signature = op.paymasterAndData[SIGNATURE_OFFSET:];
        // A malformed signature is a failed approval (the EntryPoint's AA34), never a revert.
        bytes32 digest = MessageHashUtils.toEthSignedMessageHash(approvalHash(op, validUntil, validAfter));
        (address signer, ECDSA.RecoverError failure,) = ECDSA.tryRecover(digest, signature);
        bool approved = failure == ECDSA.RecoverError.NoError && signer == approver;
        return ("", _packValidationData(!approved, validUntil, validAfter));
    }
}
