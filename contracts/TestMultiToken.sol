// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {ERC1155} from "@openzeppelin/contracts/token/ERC1155/ERC1155.sol";
import {LocalChainOnly} from "./LocalChainOnly.sol";

/// @notice ERC-1155 without metadata (empty URI). Open mint; local chains only (see LocalChainOnly).
contract TestMultiToken is ERC1155, LocalChainOnly {
    constructor() ERC1155("") {}

    /// @notice Anyone may mint any amount of any id to anyone. ERC-1155 always runs the receiver
    /// check, so contract recipients must implement IERC1155Receiver.
    function mint(address to, uint256 id, uint256 amount) external {
        _mint(to, id, amount, "");
    }
}
