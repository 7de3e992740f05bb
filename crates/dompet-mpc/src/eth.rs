//! Ethereum glue: addresses (keccak-256 of the public key) and `ecrecover`-ready signatures.

use k256::ecdsa::signature::hazmat::PrehashVerifier;
use k256::ecdsa::{RecoveryId, Signature as K256Signature, VerifyingKey};
use sha3::{Digest, Keccak256};

use crate::error::{MpcError, Result};

/// Length of a serialised signature result: `r (32) || s (32) || recovery_id (1)`.
pub const SIGNATURE_LEN: usize = 65;

/// Ethereum address (20 bytes) of an uncompressed SEC1 public key (`0x04 || x || y`).
pub fn address(uncompressed_public_key: &[u8; 65]) -> [u8; 20] {
    let hash = Keccak256::digest(&uncompressed_public_key[1..]);
    let mut out = [0u8; 20];
    out.copy_from_slice(&hash[12..]);
    out
}

/// EIP-55 mixed-case checksum encoding, with `0x` prefix.
pub fn checksum_address(address: &[u8; 20]) -> String {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    let lower: Vec<u8> = address
        .iter()
        .flat_map(|b| [HEX[usize::from(b >> 4)], HEX[usize::from(b & 0x0f)]])
        .collect();
    let hash = Keccak256::digest(&lower);
    let mut out = String::with_capacity(42);
    out.push_str("0x");
    for (i, &c) in lower.iter().enumerate() {
        let nibble = (hash[i / 2] >> (if i % 2 == 0 { 4 } else { 0 })) & 0x0f;
        if c.is_ascii_alphabetic() && nibble >= 8 {
            out.push(char::from(c.to_ascii_uppercase()));
        } else {
            out.push(char::from(c));
        }
    }
    out
}

/// Normalises `(r, s)` to low-s and finds the recovery id for which public key recovery over
/// `digest` yields `public_key` (which also verifies the signature).
///
/// Returns `r || s || recovery_id` with `recovery_id` in `{0, 1}` (add 27 for Ethereum's
/// legacy `v`). Ids 2 and 3 (x-coordinate of R above the group order) occur with probability
/// about 2^-127; they are returned as found, and callers targeting `ecrecover` reject them.
pub fn finalize_signature(
    r: &[u8; 32],
    s: &[u8; 32],
    digest: &[u8; 32],
    public_key: &[u8; 65],
) -> Result<[u8; SIGNATURE_LEN]> {
    let signature = K256Signature::from_scalars(*r, *s)
        .map_err(|_| MpcError::internal("protocol returned an invalid signature encoding"))?;
    // Negating s flips the parity of R's y coordinate, which trial recovery accounts for.
    let signature = signature.normalize_s().unwrap_or(signature);
    let verifying_key = VerifyingKey::from_sec1_bytes(public_key)
        .map_err(|_| MpcError::internal("invalid public key in key share"))?;
    let recovery_id = RecoveryId::trial_recovery_from_prehash(&verifying_key, digest, &signature)
        .map_err(|_| {
        MpcError::internal("signature does not verify against the shared public key")
    })?;
    let mut out = [0u8; SIGNATURE_LEN];
    out[..64].copy_from_slice(&signature.to_bytes());
    out[64] = recovery_id.to_byte();
    Ok(out)
}

/// Message of the [`ErrorKind::Protocol`](crate::ErrorKind::Protocol) error raised when a
/// combined signature does not verify.
pub const VERIFICATION_FAILED: &str = "signature verification failed";

/// Like [`finalize_signature`], for a signature whose validity is not known yet (combined from
/// partial signatures): verifies `(r, s)` (either s) over `digest` against `public_key` first and
/// fails with an [`ErrorKind::Protocol`](crate::ErrorKind::Protocol) error
/// ([`VERIFICATION_FAILED`]) if it does not verify.
pub fn verify_and_finalize_signature(
    r: &[u8; 32],
    s: &[u8; 32],
    digest: &[u8; 32],
    public_key: &[u8; 65],
) -> Result<[u8; SIGNATURE_LEN]> {
    let failed = || MpcError::new(crate::ErrorKind::Protocol, VERIFICATION_FAILED);
    let signature = K256Signature::from_scalars(*r, *s).map_err(|_| failed())?;
    // k256 only accepts low-s signatures.
    let signature = signature.normalize_s().unwrap_or(signature);
    let verifying_key = VerifyingKey::from_sec1_bytes(public_key)
        .map_err(|_| MpcError::input("public key is not a valid secp256k1 point"))?;
    verifying_key
        .verify_prehash(digest, &signature)
        .map_err(|_| failed())?;
    finalize_signature(r, s, digest, public_key)
}

/// Splits a 65-byte signature result into `(r, s, recovery_id)`.
pub fn split_signature(signature: &[u8]) -> Result<([u8; 32], [u8; 32], u8)> {
    if signature.len() != SIGNATURE_LEN {
        return Err(MpcError::input(format!(
            "signature must be {SIGNATURE_LEN} bytes (r || s || recovery_id), got {}",
            signature.len()
        )));
    }
    let mut r = [0u8; 32];
    let mut s = [0u8; 32];
    r.copy_from_slice(&signature[..32]);
    s.copy_from_slice(&signature[32..64]);
    Ok((r, s, signature[64]))
}

#[cfg(test)]
mod tests {
    use super::*;
    use k256::ecdsa::{signature::hazmat::PrehashSigner, SigningKey};

    #[test]
    fn eip55_vectors() {
        // Test vectors from EIP-55.
        for expected in [
            "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed",
            "0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359",
            "0xdbF03B407c01E7cD3CBea99509d93f8DDDC8C6FB",
            "0xD1220A0cf47c7B9Be7A2E6BA89F429762e7b9aDb",
        ] {
            let lower = expected[2..].to_lowercase();
            let mut raw = [0u8; 20];
            for (i, byte) in raw.iter_mut().enumerate() {
                *byte = u8::from_str_radix(&lower[2 * i..2 * i + 2], 16).unwrap();
            }
            assert_eq!(checksum_address(&raw), expected);
        }
    }

    #[test]
    fn address_of_key_0x11() {
        let key = SigningKey::from_bytes((&[0x11u8; 32]).into()).unwrap();
        let point = key.verifying_key().to_encoded_point(false);
        let public: [u8; 65] = point.as_bytes().try_into().unwrap();
        assert_eq!(
            checksum_address(&address(&public)),
            "0x19E7E376E7C213B7E7e7e46cc70A5dD086DAff2A"
        );
    }

    #[test]
    fn finalize_normalises_and_recovers() {
        let key = SigningKey::from_bytes((&[0x22u8; 32]).into()).unwrap();
        let public: [u8; 65] = key
            .verifying_key()
            .to_encoded_point(false)
            .as_bytes()
            .try_into()
            .unwrap();
        let digest = [7u8; 32];
        let sig: K256Signature = key.sign_prehash(&digest).unwrap();
        let (r, s) = sig.split_bytes();
        let (r, s): ([u8; 32], [u8; 32]) = (r.into(), s.into());
        let low = finalize_signature(&r, &s, &digest, &public).unwrap();

        // Feed the high-s twin: the result must be identical.
        let high_s = -*sig.s();
        let high = K256Signature::from_scalars(sig.r().to_bytes(), high_s.to_bytes()).unwrap();
        let (_, hs) = high.split_bytes();
        let again = finalize_signature(&r, &hs.into(), &digest, &public).unwrap();
        assert_eq!(low, again);

        let (_, s_out, v) = split_signature(&low).unwrap();
        let normalised = K256Signature::from_scalars(r, s_out).unwrap();
        assert!(normalised.normalize_s().is_none(), "s must be low");
        let recovered = VerifyingKey::recover_from_prehash(
            &digest,
            &normalised,
            RecoveryId::from_byte(v).unwrap(),
        )
        .unwrap();
        assert_eq!(&recovered, key.verifying_key());

        assert!(finalize_signature(&r, &s, &[8u8; 32], &public).is_err());

        // The verifying variant gives the same result (also from the high-s twin) and refuses
        // a signature over another digest with a protocol error.
        assert_eq!(
            verify_and_finalize_signature(&r, &hs.into(), &digest, &public).unwrap(),
            low
        );
        let err = verify_and_finalize_signature(&r, &s, &[8u8; 32], &public).unwrap_err();
        assert_eq!(err.kind(), crate::ErrorKind::Protocol);
        assert_eq!(err.to_string(), VERIFICATION_FAILED);
        assert_eq!(
            verify_and_finalize_signature(&[0u8; 32], &s, &digest, &public)
                .unwrap_err()
                .kind(),
            crate::ErrorKind::Protocol
        );
    }
}
