// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {ERC20} from "@openzeppelin/contracts/token/ERC20/ERC20.sol";
import {LocalChainOnly} from "./LocalChainOnly.sol";

/// @notice Plain 18-decimal ERC-20. Open mint; local chains only (see LocalChainOnly).
contract TestToken is ERC20, LocalChainOnly {
    constructor() ERC20("Dompet Test Token", "DTK") {}

    /// @notice Anyone may mint any amount to anyone.
    function mint(address to, uint256 amount) external {
        _mint(to, amount);
    }
}
