//! # dompet-mpc
//!
//! 2-of-3 threshold ECDSA on secp256k1 for Dompet, as a thin wrapper around the audited
//! [`cggmp21`] crate. No cryptography is implemented here: this crate
//!
//! * drives cggmp21's protocols (key generation, aux info generation, signing, presigning) as
//!   synchronous, protocol-agnostic [`Session`]s that exchange opaque byte messages ([`wire`]);
//! * issues partial signatures from presignatures and combines them, always verifying the
//!   combined signature against the caller's public key;
//! * (de)serialises shares, aux info and primes as tagged CBOR blobs ([`blob`]);
//! * wraps the trusted dealer (key import) and derives Ethereum addresses / `ecrecover`-ready
//!   signatures ([`eth`]);
//! * signs with BIP32/SLIP-10 non-hardened child keys of keys generated with a chain code, in full
//!   signing runs only (such keys never presign), and derives their public keys;
//! * wipes secrets: serialised secrets live in [`zeroize::Zeroizing`] buffers, and GMP (which
//!   holds cggmp21's Paillier secrets) frees through a wiping allocator ([`gmp_alloc`]);
//! * reads OS randomness through a wiping buffer ([`rng`]);
//! * exposes all of it to Python (feature `python`, module `dompet_mpc`).

#![forbid(unsafe_op_in_unsafe_fn)]
#![warn(missing_docs)]

pub mod blob;
mod error;
pub mod eth;
pub mod gmp_alloc;
mod protocols;
pub mod rng;
mod session;
pub mod wire;

#[cfg(feature = "python")]
mod python;

pub use blob::BlobKind;
pub use error::{ErrorKind, MpcError, Result};
pub use protocols::{
    aux_info, combine_signatures, complete_key_share, derive_public_key, issue_partial_signature,
    keygen, pregenerate_primes, presign, presignature_info, share_info, signing,
    trusted_dealer_split, PresignatureInfo, ShareInfo,
};
pub use session::Session;
pub use wire::{recipient, sender, Protocol};
