// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {ERC20} from "@openzeppelin/contracts/token/ERC20/ERC20.sol";
import {ERC20Permit} from "@openzeppelin/contracts/token/ERC20/extensions/ERC20Permit.sol";
import {LocalChainOnly} from "./LocalChainOnly.sol";

/// @notice 18-decimal ERC-20 with EIP-2612 permit (EIP-712 domain: name "Dompet Permit Token", version "1"),
/// for signing a Permit with a wallet and submitting it from another account. Open mint; local chains only.
contract TestPermitToken is ERC20, ERC20Permit, LocalChainOnly {
    constructor() ERC20("Dompet Permit Token", "DPT") ERC20Permit("Dompet Permit Token") {}

    /// @notice Anyone may mint any amount to anyone.
    function mint(address to, uint256 amount) external {
        _mint(to, amount);
    }
}
