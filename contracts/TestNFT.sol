// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {ERC721} from "@openzeppelin/contracts/token/ERC721/ERC721.sol";
import {LocalChainOnly} from "./LocalChainOnly.sol";

/// @notice ERC-721 with caller-chosen token ids. Open mint; local chains only (see LocalChainOnly).
contract TestNFT is ERC721, LocalChainOnly {
    constructor() ERC721("Dompet Test NFT", "DNFT") {}

    /// @notice Anyone may mint any unused token id to anyone. Uses _mint (no receiver check)
    /// so tests can mint to any address, contracts included.
    function mint(address to, uint256 tokenId) external {
        _mint(to, tokenId);
    }
}
