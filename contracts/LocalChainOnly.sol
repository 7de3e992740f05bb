// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

/// @notice Guard for the open-mint test contracts: anyone can mint them, so they must never be
/// deployable on a real network. The constructor reverts unless block.chainid is in 31337..31399,
/// the range reserved for our local anvil chains (31337 is anvil's default; extra local chains in
/// the dev stack and tests use the ids right above it).
abstract contract LocalChainOnly {
    uint256 internal constant MIN_LOCAL_CHAIN_ID = 31337;
    uint256 internal constant MAX_LOCAL_CHAIN_ID = 31399;

    error NotALocalChain(uint256 chainId);

    constructor() {
        if (block.chainid < MIN_LOCAL_CHAIN_ID || block.chainid > MAX_LOCAL_CHAIN_ID) {
            revert NotALocalChain(block.chainid);
        }
    }
}
