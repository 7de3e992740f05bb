// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {ERC20} from "@openzeppelin/contracts/token/ERC20/ERC20.sol";
import {LocalChainOnly} from "./LocalChainOnly.sol";

/// @notice USDT stand-in with 6 decimals like the real token, so amount-scaling bugs show up
/// in tests. Open mint; local chains only (see LocalChainOnly).
contract TestUSDT is ERC20, LocalChainOnly {
    constructor() ERC20("Test Tether USD", "USDT") {}

    function decimals() public pure override returns (uint8) {
        return 6;
    }

    /// @notice Anyone may mint any amount to anyone.
    function mint(address to, uint256 amount) external {
        _mint(to, amount);
    }
}
