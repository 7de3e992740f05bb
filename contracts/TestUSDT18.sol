// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {ERC20} from "@openzeppelin/contracts/token/ERC20/ERC20.sol";
import {LocalChainOnly} from "./LocalChainOnly.sol";

/// @notice USDT stand-in with 18 decimals, like Binance-Peg USDT on BSC: the same symbol with a
/// different scale on another chain, so per-network decimals are exercised. Open mint; local chains
/// only (see LocalChainOnly).
contract TestUSDT18 is ERC20, LocalChainOnly {
    constructor() ERC20("Test Tether USD (18 decimals)", "USDT") {}

    function decimals() public pure override returns (uint8) {
        return 18;
    }

    /// @notice Anyone may mint any amount to anyone.
    function mint(address to, uint256 amount) external {
        _mint(to, amount);
    }
}
