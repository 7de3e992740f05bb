"""ERC-4337 account abstraction, principal-free: counterfactual account addresses and user-operation packing."""
