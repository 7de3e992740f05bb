"""The MPC signing service: who holds which key share, how the parties talk, and `sign()`.

Party 0 (signer, share A) runs in the API function, party 1 (cosigner, share B)
and party 2 (user, share C inside `secret0`) in their own functions. See
docs/mpc.md for the design and docs/security.md for the threat model.
"""
