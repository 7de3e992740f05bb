"""The account the factory deploys: SimpleAccount v0.7 behind an ERC-1967 proxy (@account-abstraction/contracts@0.7.0).

SimpleAccountFactory.getAddress(owner, salt) is CREATE2 from the factory over the proxy's creation code
with constructor arguments (implementation, initialize(owner)); the implementation is the SimpleAccount the
factory created in its constructor (CREATE, nonce 1). All of it is computed here, without an RPC call.
PROXY_CREATION_CODE is `type(ERC1967Proxy).creationCode` as embedded in the pinned factory's runtime code
(bytes 1188..2235 of its `deployedBytecode`); tests check it against the artifact and against the factory's
own `getAddress` on chain.
"""

from __future__ import annotations

import functools

from chalicelib.evm.abi import encode_call

ACCOUNT_VERSION = "0.7"  # SimpleAccount of @account-abstraction/contracts 0.7.0
SALT = 0  # one account per owner and network
PROXY_CREATION_CODE = bytes.fromhex(
    "608060405260405161041738038061041783398101604081905261002291610268565b61002c8282610033565b5050610352"
    "565b61003c82610092565b6040516001600160a01b038316907fbc7cd75a20ee27fd9adebab32041f755214dbc6bffa90cc0"
    "225b39da2e5c2d3b90600090a280511561008657610081828261010e565b505050565b61008e610185565b5050565b806001"
    "600160a01b03163b6000036100cd57604051634c9c8ce360e01b81526001600160a01b03821660048201526024015b604051"
    "80910390fd5b7f360894a13ba1a3210667c828492db98dca3e2076cc3735a920a3ca505d382bbc80546001600160a01b0319"
    "166001600160a01b0392909216919091179055565b6060600080846001600160a01b03168460405161012b9190610336565b"
    "600060405180830381855af49150503d8060008114610166576040519150601f19603f3d011682016040523d82523d600060"
    "2084013e61016b565b606091505b50909250905061017c8583836101a6565b95945050505050565b34156101a45760405163"
    "b398979f60e01b815260040160405180910390fd5b565b6060826101bb576101b682610205565b6101fe565b815115801561"
    "01d257506001600160a01b0384163b155b156101fb57604051639996b31560e01b81526001600160a01b0385166004820152"
    "6024016100c4565b50805b9392505050565b8051156102155780518082602001fd5b604051630a12f52160e11b8152600401"
    "60405180910390fd5b634e487b7160e01b600052604160045260246000fd5b60005b8381101561025f578181015183820152"
    "602001610247565b50506000910152565b6000806040838503121561027b57600080fd5b82516001600160a01b0381168114"
    "61029257600080fd5b60208401519092506001600160401b03808211156102af57600080fd5b818501915085601f83011261"
    "02c357600080fd5b8151818111156102d5576102d561022e565b604051601f8201601f19908116603f011681019083821181"
    "831017156102fd576102fd61022e565b8160405282815288602084870101111561031657600080fd5b610327836020830160"
    "208801610244565b80955050505050509250929050565b60008251610348818460208701610244565b919091019291505056"
    "5b60b7806103606000396000f3fe6080604052600a600c565b005b60186014601a565b605e565b565b600060597f360894a1"
    "3ba1a3210667c828492db98dca3e2076cc3735a920a3ca505d382bbc5473ffffffffffffffffffffffffffffffffffffffff"
    "1690565b905090565b3660008037600080366000845af43d6000803e808015607c573d6000f35b3d6000fdfea26469706673"
    "58221220d7f23a80daebb5531c9e4a18d87e812fca112e5df7e56433218edcc12bbe415d64736f6c63430008170033"
)


@functools.cache
def implementation(factory: str) -> str:
    """The SimpleAccount implementation the factory deployed in its constructor (its first CREATE)."""
    import rlp
    from eth_utils import keccak, to_checksum_address

    return str(to_checksum_address(keccak(rlp.encode([bytes.fromhex(factory[2:]), 1]))[12:]))


def account_address(factory: str, owner: str, salt: int = SALT) -> str:
    """The counterfactual address of `owner`'s account: SimpleAccountFactory.getAddress(owner, salt)."""
    from eth_abi import encode
    from eth_utils import keccak, to_checksum_address

    init = encode_call("initialize(address)", owner)
    init_code_hash = keccak(PROXY_CREATION_CODE + encode(["address", "bytes"], [implementation(factory), init]))
    preimage = b"\xff" + bytes.fromhex(factory[2:]) + salt.to_bytes(32, "big") + init_code_hash
    return str(to_checksum_address(keccak(preimage)[12:]))


def factory_data(owner: str, salt: int = SALT) -> bytes:
    """The `factoryData` of a user operation that deploys the account: createAccount(owner, salt)."""
    return encode_call("createAccount(address,uint256)", owner, salt)
