//! The protocols, as [`Session`] constructors and one-shot helpers.
//!
//! All cryptography is cggmp21's; this module only validates arguments, picks the types
//! (secp256k1, SecurityLevel128, SHA-256), and (de)serialises inputs and outputs.

use cggmp21::generic_ec::{NonZero, Point, Scalar, SecretScalar};
use cggmp21::key_share::AnyKeyShare;
use cggmp21::security_level::SecurityLevel128;
use cggmp21::supported_curves::Secp256k1;
use cggmp21::{DataToSign, ExecutionId, IncompleteKeyShare, KeyShare, PregeneratedPrimes};
use serde::{Deserialize, Serialize};
use sha2::Sha256;
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
pub fn keygen(execution_id: &[u8], party: u16, n: u16, t: u16) -> Result<Session> {
    gmp_alloc::install();
    check_execution_id(execution_id)?;
    check_group(party, n)?;
    check_threshold(n, t)?;
    let eid = execution_id.to_vec();
    let machine =
        round_based::state_machine::wrap_protocol::<KeygenMsg, _>(move |mpc| async move {
            let mut rng = BufferedOsRng::new();
            cggmp21::keygen::<Curve>(ExecutionId::new(&eid), party, n)
                .set_threshold(t)
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
/// Output: 65 bytes `r || s || recovery_id`, s normalised to the lower half and recovery id
/// matching it, so `ecrecover(digest, 27 + recovery_id, r, s)` yields the wallet address.
pub fn signing(
    execution_id: &[u8],
    key_share: &[u8],
    signers: &[u16],
    digest: &[u8],
) -> Result<Session> {
    gmp_alloc::install();
    check_execution_id(execution_id)?;
    let digest: [u8; 32] = digest
        .try_into()
        .map_err(|_| MpcError::input(format!("digest must be 32 bytes, got {}", digest.len())))?;
    let share: KeyShare<Curve, Level> = blob::decode(BlobKind::KeyShare, key_share)?;
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

    let public_key = uncompressed(&share.shared_public_key());
    let data = DataToSign::<Curve>::from_scalar(Scalar::from_be_bytes_mod_order(digest));
    let eid = execution_id.to_vec();
    let parties_at_keygen = signers.clone();
    let machine =
        round_based::state_machine::wrap_protocol::<SigningMsg, _>(move |mpc| async move {
            let mut rng = BufferedOsRng::new();
            cggmp21::signing(ExecutionId::new(&eid), local, &parties_at_keygen, &share)
                .sign(&mut rng, mpc, data)
                .await
        });
    let encoder = Box::new(move |sig: cggmp21::Signature<Curve>| {
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
        let shares = cggmp21::trusted_dealer::builder::<Curve, Level>(n)
            .set_threshold(Some(t))
            .set_shared_secret_key(secret)
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
}

/// Reads the public facts of a core share or key share.
pub fn share_info(share: &[u8]) -> Result<ShareInfo> {
    gmp_alloc::install();
    catch_panic("reading share", || {
        let kind = blob::kind_of(share)?;
        let (party, n, threshold, public_key) = match kind {
            BlobKind::CoreShare => {
                let core: IncompleteKeyShare<Curve> = blob::decode(kind, share)?;
                (
                    core.i,
                    core.n(),
                    core.min_signers(),
                    core.shared_public_key(),
                )
            }
            BlobKind::KeyShare => {
                let full: KeyShare<Curve, Level> = blob::decode(kind, share)?;
                (
                    full.i,
                    full.n(),
                    full.min_signers(),
                    full.shared_public_key(),
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
        })
    })
}
