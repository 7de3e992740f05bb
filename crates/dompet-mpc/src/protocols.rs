//! The protocols, as [`Session`] constructors and one-shot helpers (including the online step of
//! presignature-based signing).
//!
//! All cryptography is cggmp21's; this module only validates arguments, picks the types
//! (secp256k1, SecurityLevel128, SHA-256), and (de)serialises inputs and outputs.

use cggmp21::generic_ec::coords::AlwaysHasAffineX;
use cggmp21::generic_ec::{NonZero, Point, Scalar, SecretScalar};
use cggmp21::hd_wallet::{ChainCode, ExtendedPublicKey, HdWallet, NonHardenedIndex, Slip10};
use cggmp21::key_share::AnyKeyShare;
use cggmp21::security_level::SecurityLevel128;
use cggmp21::supported_curves::Secp256k1;
use cggmp21::{
    DataToSign, ExecutionId, IncompleteKeyShare, KeyShare, PartialSignature, PregeneratedPrimes,
    Presignature,
};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use zeroize::Zeroizing;

use crate::blob::{self, BlobKind};
use crate::error::{catch_panic, MpcError, Result};
use crate::rng::BufferedOsRng;
use crate::session::Session;
use crate::wire::Protocol;
use crate::{eth, gmp_alloc};

/// The only security level cggmp21 predefines (128-bit; Paillier moduli from two 1536-bit safe
/// primes). Custom levels are possible with `define_security_level!` but the maintainers advise
/// against going below it.
type Level = SecurityLevel128;
type Curve = Secp256k1;
type KeygenMsg = cggmp21::keygen::ThresholdMsg<Curve, Level, Sha256>;
type AuxMsg = cggmp21::key_refresh::AuxOnlyMsg<Sha256, Level>;
type SigningMsg = cggmp21::signing::msg::Msg<Curve, Sha256>;

/// Upper bound on the number of parties we accept (the product uses 3).
const MAX_PARTIES: u16 = 16;
/// Upper bound on the execution id length (it is hashed into every proof; keep it small).
const MAX_EXECUTION_ID_LEN: usize = 1024;
/// Upper bound on a derivation path's length (BIP32 records a key's depth in one byte).
const MAX_DERIVATION_DEPTH: usize = 255;

/// Serialised form of [`PregeneratedPrimes`] (which itself has no serde support).
#[derive(Serialize, Deserialize)]
struct PrimesBlob {
    p: cggmp21::rug::Integer,
    q: cggmp21::rug::Integer,
}

fn check_execution_id(execution_id: &[u8]) -> Result<()> {
    if execution_id.is_empty() || execution_id.len() > MAX_EXECUTION_ID_LEN {
        return Err(MpcError::input(format!(
            "execution_id must be 1..={MAX_EXECUTION_ID_LEN} bytes, got {}",
            execution_id.len()
        )));
    }
    Ok(())
}

fn check_group(party: u16, n: u16) -> Result<()> {
    if !(2..=MAX_PARTIES).contains(&n) {
        return Err(MpcError::input(format!(
            "n must be in 2..={MAX_PARTIES}, got {n}"
        )));
    }
    if party >= n {
        return Err(MpcError::input(format!(
            "party index {party} out of range for n={n} (indices are 0..n-1)"
        )));
    }
    Ok(())
}

fn check_threshold(n: u16, t: u16) -> Result<()> {
    if t < 2 || t > n {
        return Err(MpcError::input(format!(
            "threshold must be in 2..=n ({n}), got {t}"
        )));
    }
    Ok(())
}

/// Generates the two safe primes of one party's Paillier key (slow: seconds to minutes).
/// Returns a secret [`BlobKind::Primes`] blob for [`aux_info`]. Use each blob once.
pub fn pregenerate_primes() -> Result<Zeroizing<Vec<u8>>> {
    gmp_alloc::install();
    catch_panic("prime generation", || {
        let (p, q) = PregeneratedPrimes::<Level>::generate(&mut BufferedOsRng::new()).split();
        blob::encode(BlobKind::Primes, &PrimesBlob { p, q })
    })
}

fn decode_primes(primes: &[u8]) -> Result<PregeneratedPrimes<Level>> {
    let PrimesBlob { p, q } = blob::decode(BlobKind::Primes, primes)?;
    PregeneratedPrimes::new(p, q)
        .ok_or_else(|| MpcError::input("pregenerated primes are too small for the security level"))
}

/// Distributed key generation, threshold `t` of `n`. Output: a [`BlobKind::CoreShare`].
///
/// `hd`: the parties also generate a chain code jointly, so the key is the master of BIP32/SLIP-10
/// non-hardened child keys ([`signing`] with a derivation path, [`derive_public_key`]). Such a key
/// never presigns ([`presign`] refuses it). Every party of a run must pass the same `hd`.
pub fn keygen(execution_id: &[u8], party: u16, n: u16, t: u16, hd: bool) -> Result<Session> {
    gmp_alloc::install();
    check_execution_id(execution_id)?;
    check_group(party, n)?;
    check_threshold(n, t)?;
    let eid = execution_id.to_vec();
    let machine =
        round_based::state_machine::wrap_protocol::<KeygenMsg, _>(move |mpc| async move {
            let mut rng = BufferedOsRng::new();
            // Explicit either way: cggmp21's builder enables HD by default.
            cggmp21::keygen::<Curve>(ExecutionId::new(&eid), party, n)
                .set_threshold(t)
                .hd_wallet(hd)
                .start(&mut rng, mpc)
                .await
        });
    Ok(Session::new(
        Protocol::Keygen,
        party,
        (0..n).collect(),
        execution_id,
        machine,
        Box::new(|share: IncompleteKeyShare<Curve>| blob::encode(BlobKind::CoreShare, &share)),
    ))
}

/// Auxiliary info generation for `n` parties (Paillier keys, ring-Pedersen parameters, proofs).
/// Not tied to a key: the output can complete any core share of the same party index in the same
/// group of signers. Output: a [`BlobKind::AuxInfo`].
pub fn aux_info(execution_id: &[u8], party: u16, n: u16, primes: &[u8]) -> Result<Session> {
    gmp_alloc::install();
    check_execution_id(execution_id)?;
    check_group(party, n)?;
    let primes = decode_primes(primes)?;
    let eid = execution_id.to_vec();
    let machine = round_based::state_machine::wrap_protocol::<AuxMsg, _>(move |mpc| async move {
        let mut rng = BufferedOsRng::new();
        cggmp21::aux_info_gen(ExecutionId::new(&eid), party, n, primes)
            .start(&mut rng, mpc)
            .await
    });
    Ok(Session::new(
        Protocol::AuxInfo,
        party,
        (0..n).collect(),
        execution_id,
        machine,
        Box::new(|aux: cggmp21::key_share::AuxInfo<Level>| blob::encode(BlobKind::AuxInfo, &aux)),
    ))
}

/// Combines a core share and aux info of the same party into a validated key share.
pub fn complete_key_share(core_share: &[u8], aux_info: &[u8]) -> Result<Zeroizing<Vec<u8>>> {
    gmp_alloc::install();
    catch_panic("completing key share", || {
        let core: IncompleteKeyShare<Curve> = blob::decode(BlobKind::CoreShare, core_share)?;
        let aux: cggmp21::key_share::AuxInfo<Level> = blob::decode(BlobKind::AuxInfo, aux_info)?;
        let party = core.i;
        let n = core.n();
        if aux.parties.len() != usize::from(n) {
            return Err(MpcError::input(format!(
                "aux info is for {} parties, the core share for {n}",
                aux.parties.len()
            )));
        }
        let share = KeyShare::<Curve, Level>::from_parts((core, aux)).map_err(|_| {
            MpcError::input(format!(
                "aux info does not belong to party {party} of this group \
                 (its Paillier key is not the one recorded for index {party})"
            ))
        })?;
        blob::encode(BlobKind::KeyShare, &share)
    })
}

/// Threshold signing of a 32-byte prehashed `digest` by the parties `signers` (key generation
/// indices, exactly `t` of them, including the owner of `key_share`; order does not matter).
///
/// `derivation_path`: sign with the BIP32/SLIP-10 non-hardened child key at that path (cggmp21's
/// `set_derivation_path`) instead of the shared key. The share must have a chain code (keygen with
/// `hd`) and every index must be below 2^31; both are checked here, before the session exists.
/// All signers must use the same path, or the run yields no valid signature.
///
/// Output: 65 bytes `r || s || recovery_id`, s normalised to the lower half and recovery id
/// matching it, so `ecrecover(digest, 27 + recovery_id, r, s)` yields the wallet address (with a
/// path: the address of the child key, [`derive_public_key`]); the signature is verified against
/// that key before it is returned.
pub fn signing(
    execution_id: &[u8],
    key_share: &[u8],
    signers: &[u16],
    digest: &[u8],
    derivation_path: Option<&[u32]>,
) -> Result<Session> {
    gmp_alloc::install();
    check_execution_id(execution_id)?;
    let digest = check_digest(digest)?;
    let share: KeyShare<Curve, Level> = blob::decode(BlobKind::KeyShare, key_share)?;
    let party = share.i;
    let (signers, local) = check_signers(&share, signers)?;

    let (path, public_key) = match derivation_path {
        None => (None, uncompressed(&share.shared_public_key())),
        Some(path) => {
            let master = share.extended_public_key().ok_or_else(|| {
                MpcError::input(
                    "this key share has no chain code (its key was not generated with hd): \
                     it cannot sign for a derivation path",
                )
            })?;
            let path = check_path(path)?;
            let child = derive(&master, &path)?;
            (Some(path), uncompressed(&child))
        }
    };
    let data = data_to_sign(&digest);
    let eid = execution_id.to_vec();
    let parties_at_keygen = signers.clone();
    let machine =
        round_based::state_machine::wrap_protocol::<SigningMsg, _>(move |mpc| async move {
            let mut rng = BufferedOsRng::new();
            let builder =
                cggmp21::signing(ExecutionId::new(&eid), local, &parties_at_keygen, &share);
            let builder = match path {
                None => builder,
                // The share's chain code and the indices were checked above; the error is typed
                // `Infallible` for the indices, and the chain code cannot be missing here.
                Some(path) => builder
                    .set_derivation_path(path)
                    .map_err(|_| SigningRunError::Derivation)?,
            };
            builder
                .sign(&mut rng, mpc, data)
                .await
                .map_err(SigningRunError::Signing)
        });
    let encoder = Box::new(move |sig: cggmp21::Signature<Curve>| {
        let (r, s) = signature_bytes(&sig)?;
        let out = eth::finalize_signature(&r, &s, &digest, &public_key)?;
        Ok(Zeroizing::new(out.to_vec()))
    });
    Ok(Session::new(
        Protocol::Signing,
        party,
        signers,
        execution_id,
        machine,
        encoder,
    ))
}

/// Error of a signing run: cggmp21's, or (unreachable: checked before the run) a derivation path
/// cggmp21 would not take. Displays exactly as cggmp21's error.
#[derive(Debug)]
enum SigningRunError {
    Signing(cggmp21::signing::SigningError),
    Derivation,
}

impl std::fmt::Display for SigningRunError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Signing(err) => err.fmt(f),
            Self::Derivation => f.write_str("derivation path refused"),
        }
    }
}

impl std::error::Error for SigningRunError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Self::Signing(err) => err.source(),
            Self::Derivation => None,
        }
    }
}

/// A derivation path as non-hardened indices: at most [`MAX_DERIVATION_DEPTH`] of them, each
/// below 2^31. A threshold key has no single secret to derive hardened children from.
fn check_path(path: &[u32]) -> Result<Vec<NonHardenedIndex>> {
    if path.len() > MAX_DERIVATION_DEPTH {
        return Err(MpcError::input(format!(
            "derivation path is {} indices long, at most {MAX_DERIVATION_DEPTH} are allowed",
            path.len()
        )));
    }
    path.iter()
        .enumerate()
        .map(|(depth, &index)| {
            NonHardenedIndex::try_from(index).map_err(|_| {
                MpcError::input(format!(
                    "derivation index {index} at position {depth} is hardened (>= 2^31): only \
                     non-hardened derivation is possible with a threshold key"
                ))
            })
        })
        .collect()
}

/// The child public key at `path` below `master` (hd-wallet's SLIP-10 public derivation, the
/// same cggmp21 applies when signing with that path).
fn derive(
    master: &ExtendedPublicKey<Curve>,
    path: &[NonHardenedIndex],
) -> Result<NonZero<Point<Curve>>> {
    let child = Slip10::derive_child_public_key_with_path(master, path.iter().copied());
    // SLIP-10 skips to the next index in the (2^-127) case of an invalid child; a zero point
    // cannot come out, but a point type that may be zero is not taken on trust.
    NonZero::from_point(child.public_key)
        .ok_or_else(|| MpcError::input("derivation path leads to an invalid key"))
}

/// The compressed SEC1 public key (33 bytes) of the BIP32/SLIP-10 non-hardened child at `path`
/// below the key `public_key` (SEC1, 33 or 65 bytes) with `chain_code` (32 bytes): the key a
/// [`signing`] run with that `derivation_path` signs for. An empty path gives `public_key`.
pub fn derive_public_key(public_key: &[u8], chain_code: &[u8], path: &[u32]) -> Result<[u8; 33]> {
    catch_panic("deriving a public key", || {
        let point = parse_point(public_key)?;
        let chain_code: ChainCode = chain_code.try_into().map_err(|_| {
            MpcError::input(format!(
                "chain code must be 32 bytes, got {}",
                chain_code.len()
            ))
        })?;
        let master = ExtendedPublicKey {
            public_key: point.into_inner(),
            chain_code,
        };
        let child = derive(&master, &check_path(path)?)?;
        let mut out = [0u8; 33];
        out.copy_from_slice(child.to_bytes(true).as_bytes());
        Ok(out)
    })
}

/// Validates a signer set against a key share: exactly `t` distinct key generation indices below
/// `n`, including the share's owner. Returns the sorted set and the owner's position in it
/// (cggmp21's signer index).
fn check_signers(share: &KeyShare<Curve, Level>, signers: &[u16]) -> Result<(Vec<u16>, u16)> {
    let party = share.i;
    let (n, t) = (share.n(), share.min_signers());
    let mut signers = signers.to_vec();
    signers.sort_unstable();
    signers.dedup();
    if signers.len() != usize::from(t) {
        return Err(MpcError::input(format!(
            "exactly {t} distinct signers are required, got {signers:?}"
        )));
    }
    if let Some(bad) = signers.iter().find(|&&j| j >= n) {
        return Err(MpcError::input(format!(
            "signer index {bad} out of range for n={n}"
        )));
    }
    let local = signers.iter().position(|&j| j == party).ok_or_else(|| {
        MpcError::input(format!(
            "this key share belongs to party {party}, which is not among the signers {signers:?}"
        ))
    })?;
    let local = u16::try_from(local).map_err(|_| MpcError::internal("index overflow"))?;
    Ok((signers, local))
}

fn check_digest(digest: &[u8]) -> Result<[u8; 32]> {
    digest
        .try_into()
        .map_err(|_| MpcError::input(format!("digest must be 32 bytes, got {}", digest.len())))
}

fn data_to_sign(digest: &[u8; 32]) -> DataToSign<Curve> {
    DataToSign::from_scalar(Scalar::from_be_bytes_mod_order(digest))
}

/// Serialised form of one signer's presignature ([`BlobKind::Presignature`], secret). Short field
/// names keep the blob small (cggmp21's own serde format for the presignature is verbose).
#[derive(Serialize, Deserialize)]
struct PresignatureBlob {
    /// Owner's key generation index.
    #[serde(rename = "i")]
    party: u16,
    /// Key generation indices of the signers that generated it (sorted). Only these parties'
    /// partial signatures from the same run can be combined.
    #[serde(rename = "S")]
    signers: Vec<u16>,
    /// Shared public key of the wallet, compressed (informational: `combine_signatures` takes the
    /// key from the caller, never from a blob).
    #[serde(rename = "pk", with = "compressed_point")]
    public_key: NonZero<Point<Curve>>,
    /// cggmp21's presignature share (`R`, `k_i`, `chi_i`), in cggmp21's serde format.
    #[serde(rename = "presig")]
    presignature: Presignature<Curve>,
}

/// Serialised form of one signer's partial signature ([`BlobKind::PartialSignature`], public).
/// Everything in it comes from a peer and is unauthenticated; `combine_signatures` uses the
/// indices only for sanity checks and always verifies the result.
#[derive(Serialize, Deserialize)]
struct PartialSignatureBlob {
    /// Issuer's key generation index.
    #[serde(rename = "i")]
    party: u16,
    /// Signer set of the presignature it was issued from (sorted).
    #[serde(rename = "S")]
    signers: Vec<u16>,
    /// cggmp21's partial signature (`r`, `sigma_i`), in cggmp21's serde format.
    #[serde(rename = "sig")]
    partial: PartialSignature<Curve>,
}

/// A non-zero point as a 33-byte SEC1 compressed CBOR byte string (generic-ec's default format is
/// uncompressed plus a curve name, 3x the size). Decoding validates the point (generic-ec).
mod compressed_point {
    use std::fmt;

    use cggmp21::generic_ec::{NonZero, Point};
    use serde::{de, Deserializer, Serializer};

    use super::Curve;

    pub(super) fn serialize<S: Serializer>(
        point: &NonZero<Point<Curve>>,
        serializer: S,
    ) -> Result<S::Ok, S::Error> {
        serializer.serialize_bytes(point.to_bytes(true).as_bytes())
    }

    pub(super) fn deserialize<'de, D: Deserializer<'de>>(
        deserializer: D,
    ) -> Result<NonZero<Point<Curve>>, D::Error> {
        struct PointVisitor;
        impl de::Visitor<'_> for PointVisitor {
            type Value = NonZero<Point<Curve>>;

            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a compressed secp256k1 point")
            }

            fn visit_bytes<E: de::Error>(self, bytes: &[u8]) -> Result<Self::Value, E> {
                Point::<Curve>::from_bytes(bytes)
                    .ok()
                    .and_then(NonZero::from_point)
                    .ok_or_else(|| E::custom("invalid point"))
            }
        }
        deserializer.deserialize_bytes(PointVisitor)
    }
}

/// Presignature generation by the parties `signers` (key generation indices, exactly `t` of
/// them, including the owner of `key_share`; order does not matter): the offline, message
/// independent part of [`signing`] (cggmp21's `generate_presignature`). A key share with a chain
/// code (keygen with `hd`) is refused: HD keys sign only in full runs.
///
/// Output: a secret [`BlobKind::Presignature`] for [`issue_partial_signature`]. **Use it for at
/// most one digest**: two partial signatures over different digests from one presignature reveal
/// the key.
pub fn presign(execution_id: &[u8], key_share: &[u8], signers: &[u16]) -> Result<Session> {
    gmp_alloc::install();
    check_execution_id(execution_id)?;
    let share: KeyShare<Curve, Level> = blob::decode(BlobKind::KeyShare, key_share)?;
    if share.extended_public_key().is_some() {
        // Presignatures together with additive (BIP32) derivation allow a known attack
        // (Groth–Shoup, ePrint 2021/1330): a key that can derive children signs in full only.
        return Err(MpcError::input(
            "this key share has a chain code (an HD key): HD keys never presign, they sign \
             only in full signing runs",
        ));
    }
    let party = share.i;
    let (signers, local) = check_signers(&share, signers)?;

    let public_key = share.shared_public_key();
    let eid = execution_id.to_vec();
    let parties_at_keygen = signers.clone();
    let machine =
        round_based::state_machine::wrap_protocol::<SigningMsg, _>(move |mpc| async move {
            let mut rng = BufferedOsRng::new();
            cggmp21::signing(ExecutionId::new(&eid), local, &parties_at_keygen, &share)
                .generate_presignature(&mut rng, mpc)
                .await
        });
    let blob_signers = signers.clone();
    let encoder = Box::new(move |presignature: Presignature<Curve>| {
        blob::encode(
            BlobKind::Presignature,
            &PresignatureBlob {
                party,
                signers: blob_signers,
                public_key,
                presignature,
            },
        )
    });
    Ok(Session::new(
        Protocol::Presigning,
        party,
        signers,
        execution_id,
        machine,
        encoder,
    ))
}

/// This party's partial signature of the 32-byte prehashed `digest`, from its presignature share
/// (cggmp21's `Presignature::issue_partial_signature`). Output: a public
/// [`BlobKind::PartialSignature`] to send to whoever combines.
///
/// **Single use:** the caller must make sure (durably, before releasing the result) that this
/// presignature is never used again, for any digest.
pub fn issue_partial_signature(presignature: &[u8], digest: &[u8]) -> Result<Zeroizing<Vec<u8>>> {
    gmp_alloc::install();
    let digest = check_digest(digest)?;
    catch_panic("issuing partial signature", || {
        let PresignatureBlob {
            party,
            signers,
            presignature,
            ..
        } = blob::decode(BlobKind::Presignature, presignature)?;
        let partial = presignature.issue_partial_signature(data_to_sign(&digest));
        blob::encode(
            BlobKind::PartialSignature,
            &PartialSignatureBlob {
                party,
                signers,
                partial,
            },
        )
    })
}

/// Combines the partial signatures of all signers of one presignature over `digest`
/// (cggmp21's `PartialSignature::combine`) and **verifies** the result against `public_key`, the
/// wallet's SEC1 public key (33 or 65 bytes) as the caller knows it (e.g. `share_info`), never a
/// key taken from a peer.
///
/// Output: 65 bytes `r || s || recovery_id` exactly like [`signing`] (low s, recovery id such that
/// `ecrecover` yields the wallet address). Errors: malformed or mismatching partial signatures
/// (wrong blob kind, different presignatures or signer sets, duplicates, missing signers) are
/// [`ErrorKind::InvalidInput`](crate::ErrorKind::InvalidInput); a combined signature that does
/// not verify is [`ErrorKind::Protocol`](crate::ErrorKind::Protocol) with the message
/// [`eth::VERIFICATION_FAILED`] (a signer used another digest or presignature, or cheated).
pub fn combine_signatures<P: AsRef<[u8]>>(
    partials: &[P],
    public_key: &[u8],
    digest: &[u8],
) -> Result<[u8; eth::SIGNATURE_LEN]> {
    gmp_alloc::install();
    let digest = check_digest(digest)?;
    catch_panic("combining partial signatures", || {
        let public_key = parse_public_key(public_key)?;
        if partials.is_empty() {
            return Err(MpcError::input("no partial signatures given"));
        }
        if partials.len() > usize::from(MAX_PARTIES) {
            return Err(MpcError::input(format!(
                "too many partial signatures: {}",
                partials.len()
            )));
        }
        let partials = partials
            .iter()
            .map(|p| blob::decode::<PartialSignatureBlob>(BlobKind::PartialSignature, p.as_ref()))
            .collect::<Result<Vec<_>>>()?;
        let signers = &partials[0].signers;
        if partials.iter().any(|p| &p.signers != signers) {
            return Err(MpcError::input(
                "partial signatures come from presignatures of different signer sets",
            ));
        }
        if partials
            .iter()
            .any(|p| p.partial.r != partials[0].partial.r)
        {
            return Err(MpcError::input(
                "partial signatures come from different presignatures",
            ));
        }
        let mut parties: Vec<u16> = partials.iter().map(|p| p.party).collect();
        parties.sort_unstable();
        if parties.windows(2).any(|w| w[0] == w[1]) {
            return Err(MpcError::input(format!(
                "more than one partial signature from the same party (parties {parties:?})"
            )));
        }
        if &parties != signers {
            return Err(MpcError::input(format!(
                "need one partial signature from each signer {signers:?}, got parties {parties:?}"
            )));
        }
        let partials: Vec<PartialSignature<Curve>> =
            partials.into_iter().map(|p| p.partial).collect();
        // `combine` does not verify (and returns None only for a zero r or s).
        let signature = PartialSignature::combine(&partials)
            .ok_or_else(|| MpcError::new(crate::ErrorKind::Protocol, eth::VERIFICATION_FAILED))?;
        let (r, s) = signature_bytes(&signature)?;
        eth::verify_and_finalize_signature(&r, &s, &digest, &public_key)
    })
}

/// Accepts a compressed (33) or uncompressed (65 bytes) SEC1 public key; returns it uncompressed.
fn parse_public_key(public_key: &[u8]) -> Result<[u8; 65]> {
    Ok(uncompressed(&parse_point(public_key)?))
}

/// A compressed (33) or uncompressed (65 bytes) SEC1 public key as a point.
fn parse_point(public_key: &[u8]) -> Result<NonZero<Point<Curve>>> {
    if public_key.len() != 33 && public_key.len() != 65 {
        return Err(MpcError::input(format!(
            "public key must be a 33- or 65-byte SEC1 encoding, got {} bytes",
            public_key.len()
        )));
    }
    Point::<Curve>::from_bytes(public_key)
        .ok()
        .and_then(NonZero::from_point)
        .ok_or_else(|| MpcError::input("public key is not a valid secp256k1 point"))
}

fn signature_bytes(sig: &cggmp21::Signature<Curve>) -> Result<([u8; 32], [u8; 32])> {
    let r: [u8; 32] = sig
        .r
        .to_be_bytes()
        .as_bytes()
        .try_into()
        .map_err(|_| bad_scalar())?;
    let s: [u8; 32] = sig
        .s
        .to_be_bytes()
        .as_bytes()
        .try_into()
        .map_err(|_| bad_scalar())?;
    Ok((r, s))
}

/// Public, non-secret facts about a presignature blob.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PresignatureInfo {
    /// Owner's party index (at key generation).
    pub party: u16,
    /// Key generation indices of the signers of this presignature (sorted).
    pub signers: Vec<u16>,
    /// Shared public key, uncompressed SEC1 (65 bytes), as recorded at presigning.
    pub public_key: [u8; 65],
    /// EIP-55 Ethereum address of that key.
    pub address: String,
    /// Identifier of the presignature run, equal for all signers' shares of one presignature:
    /// SHA-256("dompet-mpc/presignature-id/v1" || r)[..16], r = x(R) mod n. R (the nonce point)
    /// is no secret: every signer learns it and it becomes the signature's r.
    pub presignature_id: [u8; 16],
}

/// Reads the public facts of a presignature.
pub fn presignature_info(presignature: &[u8]) -> Result<PresignatureInfo> {
    gmp_alloc::install();
    catch_panic("reading presignature", || {
        let PresignatureBlob {
            party,
            signers,
            public_key,
            presignature,
        } = blob::decode(BlobKind::Presignature, presignature)?;
        let r = presignature.R.x().to_scalar().to_be_bytes();
        let id = Sha256::new()
            .chain_update(b"dompet-mpc/presignature-id/v1")
            .chain_update(r.as_bytes())
            .finalize();
        let mut presignature_id = [0u8; 16];
        presignature_id.copy_from_slice(&id[..16]);
        let public_key = uncompressed(&public_key);
        Ok(PresignatureInfo {
            party,
            signers,
            address: eth::checksum_address(&eth::address(&public_key)),
            public_key,
            presignature_id,
        })
    })
}

fn bad_scalar() -> MpcError {
    MpcError::internal("unexpected scalar encoding")
}

/// Trusted-dealer key import: splits `private_key` (32 bytes, big endian) into `n` core shares
/// with threshold `t` (cggmp21's `trusted_dealer`, feature `spof`). Shares are returned in party
/// order; complete each with that party's aux info. The caller must wipe its copy of the key.
pub fn trusted_dealer_split(private_key: &[u8], n: u16, t: u16) -> Result<Vec<Zeroizing<Vec<u8>>>> {
    gmp_alloc::install();
    check_group(0, n)?;
    check_threshold(n, t)?;
    if private_key.len() != 32 {
        return Err(MpcError::input(format!(
            "private key must be 32 bytes, got {}",
            private_key.len()
        )));
    }
    catch_panic("trusted dealer", || {
        let secret = SecretScalar::<Curve>::from_be_bytes(private_key)
            .map_err(|_| MpcError::input("private key is not below the secp256k1 group order"))?;
        let secret = NonZero::from_secret_scalar(secret)
            .ok_or_else(|| MpcError::input("private key must not be zero"))?;
        // An imported key is no HD key (cggmp21's dealer adds a chain code by default).
        let shares = cggmp21::trusted_dealer::builder::<Curve, Level>(n)
            .set_threshold(Some(t))
            .set_shared_secret_key(secret)
            .hd_wallet(false)
            .generate_core_shares(&mut BufferedOsRng::new())
            .map_err(|e| MpcError::protocol("trusted dealer", &e))?;
        shares
            .iter()
            .map(|share| blob::encode(BlobKind::CoreShare, share))
            .collect()
    })
}

fn uncompressed(point: &NonZero<Point<Curve>>) -> [u8; 65] {
    let mut out = [0u8; 65];
    out.copy_from_slice(point.to_bytes(false).as_bytes());
    out
}

/// Public, non-secret facts about a share blob.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ShareInfo {
    /// Blob kind (core share or key share).
    pub kind: BlobKind,
    /// Owner's party index.
    pub party: u16,
    /// Number of parties.
    pub n: u16,
    /// Threshold (signers needed).
    pub threshold: u16,
    /// Shared public key, uncompressed SEC1 (65 bytes).
    pub public_key: [u8; 65],
    /// EIP-55 Ethereum address.
    pub address: String,
    /// Chain code of an HD key (keygen with `hd`): with `public_key`, the extended public key
    /// that [`derive_public_key`] derives child keys from. None for any other key.
    pub chain_code: Option<[u8; 32]>,
}

/// Reads the public facts of a core share or key share.
pub fn share_info(share: &[u8]) -> Result<ShareInfo> {
    gmp_alloc::install();
    catch_panic("reading share", || {
        let kind = blob::kind_of(share)?;
        let (party, n, threshold, public_key, extended) = match kind {
            BlobKind::CoreShare => {
                let core: IncompleteKeyShare<Curve> = blob::decode(kind, share)?;
                (
                    core.i,
                    core.n(),
                    core.min_signers(),
                    core.shared_public_key(),
                    core.extended_public_key(),
                )
            }
            BlobKind::KeyShare => {
                let full: KeyShare<Curve, Level> = blob::decode(kind, share)?;
                (
                    full.i,
                    full.n(),
                    full.min_signers(),
                    full.shared_public_key(),
                    full.extended_public_key(),
                )
            }
            other => {
                return Err(MpcError::input(format!(
                    "expected a core share or key share, got {}",
                    other.name()
                )))
            }
        };
        let public_key = uncompressed(&public_key);
        Ok(ShareInfo {
            kind,
            party,
            n,
            threshold,
            address: eth::checksum_address(&eth::address(&public_key)),
            public_key,
            chain_code: extended.map(|key| key.chain_code),
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn random_point(rng: &mut BufferedOsRng) -> NonZero<Point<Curve>> {
        Point::generator() * NonZero::<Scalar<Curve>>::random(rng)
    }

    #[test]
    fn presignature_blob_roundtrip() {
        let mut rng = BufferedOsRng::new();
        let original = PresignatureBlob {
            party: 2,
            signers: vec![0, 2],
            public_key: random_point(&mut rng),
            presignature: Presignature {
                R: random_point(&mut rng),
                k: SecretScalar::random(&mut rng),
                chi: SecretScalar::random(&mut rng),
            },
        };
        let bytes = blob::encode(BlobKind::Presignature, &original).unwrap();
        let back: PresignatureBlob = blob::decode(BlobKind::Presignature, &bytes).unwrap();
        assert_eq!((back.party, &back.signers), (2, &vec![0, 2]));
        assert_eq!(back.public_key, original.public_key);
        assert_eq!(back.presignature.R, original.presignature.R);
        assert_eq!(
            back.presignature.k.as_ref(),
            original.presignature.k.as_ref()
        );
        assert_eq!(
            back.presignature.chi.as_ref(),
            original.presignature.chi.as_ref()
        );
        assert_eq!(
            *blob::encode(BlobKind::Presignature, &back).unwrap(),
            *bytes
        );
        assert!(
            bytes.len() <= 280,
            "presignature blob is {} bytes",
            bytes.len()
        );

        // The partial signature blob round-trips as well, and both kinds are told apart.
        let digest = [0x77u8; 32];
        let partial = issue_partial_signature(&bytes, &digest).unwrap();
        let decoded: PartialSignatureBlob =
            blob::decode(BlobKind::PartialSignature, &partial).unwrap();
        assert_eq!((decoded.party, &decoded.signers), (2, &vec![0, 2]));
        assert_eq!(
            decoded.partial.r,
            original.presignature.R.x().to_scalar(),
            "r is the x coordinate of R"
        );
        assert_eq!(
            *blob::encode(BlobKind::PartialSignature, &decoded).unwrap(),
            *partial
        );
        assert!(
            partial.len() <= 150,
            "partial blob is {} bytes",
            partial.len()
        );
        assert_eq!(
            issue_partial_signature(&partial, &digest)
                .unwrap_err()
                .kind(),
            crate::ErrorKind::InvalidInput
        );
        assert_eq!(
            presignature_info(&bytes).unwrap().public_key,
            uncompressed(&original.public_key)
        );
    }

    #[test]
    fn public_key_encodings() {
        let mut rng = BufferedOsRng::new();
        let point = random_point(&mut rng);
        let full = uncompressed(&point);
        assert_eq!(parse_public_key(&full).unwrap(), full);
        assert_eq!(
            parse_public_key(point.to_bytes(true).as_bytes()).unwrap(),
            full
        );
        assert!(parse_public_key(&full[..64]).is_err());
        assert!(parse_public_key(&[0u8; 33]).is_err());
        let mut off_curve = full;
        off_curve[64] ^= 1;
        assert!(parse_public_key(&off_curve).is_err());
    }
}
