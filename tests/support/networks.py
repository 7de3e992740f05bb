"""Network registry entries for tests that never reach a chain."""

from __future__ import annotations

FACTORY = "0x91E60e0613810449d098b0b5Ec8b51A0FE8c8985"


def aa_network(name: str, chain_id: int, **extra: object) -> dict[str, object]:
    return {
        "name": name,
        "chainId": chain_id,
        "rpcUrls": ["http://127.0.0.1:9"],
        "nativeSymbol": "ETH",
        "tokens": {"usdt": "0x" + "12" * 20},
        "usdtDecimals": 6,
        "entryPoint": "0x0000000071727De22E5E9d8BAf0edAc6f37da032",
        "accountFactory": FACTORY,
        "paymaster": "0x" + "34" * 20,
        "bundlerUrls": ["http://127.0.0.1:4337"],
        "poolAddress": "0x" + "56" * 20,
        "nativeToGasTankRate": "2000",
        **extra,
    }
