//! Serialised artefacts handed to the caller (shares, aux info, primes, presignatures, partial
//! signatures).
//!
//! ```text
//!   0  4  magic "DMPK"
//!   4  1  format version (1)
//!   5  1  kind (see [`BlobKind`])
//!   6 ..  CBOR of the cggmp21 value
//! ```
//!
//! CBOR via `ciborium` is one of the two encodings the `key-share` crate documents as supported
//! for its shares (the other is JSON); its field-name based format keeps old shares readable by
//! newer cggmp21 versions.
//!
//! Blobs are produced into a [`Zeroizing`] buffer that never reallocates behind our back
//! (see [`SecretWriter`]), so no stray copy of a share is left in freed heap memory by us.

use std::io;

use serde::{de::DeserializeOwned, Serialize};
use zeroize::Zeroizing;

use crate::error::{MpcError, Result};

const MAGIC: &[u8; 4] = b"DMPK";
const VERSION: u8 = 1;
const HEADER_LEN: usize = 6;

/// What a blob contains. Every kind is secret except [`BlobKind::PartialSignature`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BlobKind {
    /// Two safe primes for one party's Paillier key (output of prime pregeneration).
    Primes,
    /// Core ("incomplete") key share: secret share + public key info, no aux info.
    CoreShare,
    /// One party's auxiliary info: own Paillier secret key + every party's public parameters.
    AuxInfo,
    /// Complete, validated key share (core share + aux info): what signing needs.
    KeyShare,
    /// One signer's share of a presignature (output of presigning): secret, and **single use**.
    Presignature,
    /// One signer's partial signature of a digest, issued from a presignature. Not secret.
    PartialSignature,
}

impl BlobKind {
    fn tag(self) -> u8 {
        match self {
            BlobKind::Primes => 1,
            BlobKind::CoreShare => 2,
            BlobKind::AuxInfo => 3,
            BlobKind::KeyShare => 4,
            BlobKind::Presignature => 5,
            BlobKind::PartialSignature => 6,
        }
    }

    fn from_tag(tag: u8) -> Option<Self> {
        match tag {
            1 => Some(BlobKind::Primes),
            2 => Some(BlobKind::CoreShare),
            3 => Some(BlobKind::AuxInfo),
            4 => Some(BlobKind::KeyShare),
            5 => Some(BlobKind::Presignature),
            6 => Some(BlobKind::PartialSignature),
            _ => None,
        }
    }

    /// Human readable name used in error messages.
    pub fn name(self) -> &'static str {
        match self {
            BlobKind::Primes => "pregenerated primes",
            BlobKind::CoreShare => "core key share",
            BlobKind::AuxInfo => "aux info",
            BlobKind::KeyShare => "key share",
            BlobKind::Presignature => "presignature",
            BlobKind::PartialSignature => "partial signature",
        }
    }
}

/// `io::Write` into a zeroizing buffer. Growing copies into a fresh zeroizing buffer and wipes
/// the old one, instead of letting `Vec` reallocate (which would free an un-wiped copy).
pub(crate) struct SecretWriter(Zeroizing<Vec<u8>>);

impl SecretWriter {
    pub(crate) fn with_capacity(capacity: usize) -> Self {
        Self(Zeroizing::new(Vec::with_capacity(capacity)))
    }

    pub(crate) fn into_inner(self) -> Zeroizing<Vec<u8>> {
        self.0
    }
}

impl io::Write for SecretWriter {
    fn write(&mut self, data: &[u8]) -> io::Result<usize> {
        let needed = self.0.len() + data.len();
        if needed > self.0.capacity() {
            let capacity = needed.max(self.0.capacity() * 2).max(256);
            let mut grown = Zeroizing::new(Vec::with_capacity(capacity));
            grown.extend_from_slice(&self.0);
            // The previous buffer is zeroized (whole capacity) when dropped here.
            self.0 = grown;
        }
        self.0.extend_from_slice(data);
        Ok(data.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// Serialises `value` as a blob of the given kind into a zeroizing buffer.
pub fn encode<T: Serialize>(kind: BlobKind, value: &T) -> Result<Zeroizing<Vec<u8>>> {
    let mut writer = SecretWriter::with_capacity(4096);
    io::Write::write_all(&mut writer, MAGIC).map_err(|_| encode_failed(kind))?;
    io::Write::write_all(&mut writer, &[VERSION, kind.tag()]).map_err(|_| encode_failed(kind))?;
    ciborium::into_writer(value, &mut writer).map_err(|_| encode_failed(kind))?;
    Ok(writer.into_inner())
}

fn encode_failed(kind: BlobKind) -> MpcError {
    MpcError::internal(format!("could not serialise {}", kind.name()))
}

/// Reads the kind of a blob without decoding it.
pub fn kind_of(bytes: &[u8]) -> Result<BlobKind> {
    if bytes.len() < HEADER_LEN || &bytes[0..4] != MAGIC {
        return Err(MpcError::input(
            "not a dompet-mpc blob (expected a share, aux info, primes, presignature or partial \
             signature produced by dompet_mpc)",
        ));
    }
    if bytes[4] != VERSION {
        return Err(MpcError::input(format!(
            "unsupported blob format version {} (expected {VERSION})",
            bytes[4]
        )));
    }
    BlobKind::from_tag(bytes[5])
        .ok_or_else(|| MpcError::input(format!("unknown blob kind {}", bytes[5])))
}

/// Decodes a blob that must be of kind `expected`.
///
/// Deserialising cggmp21's validated types (`Valid<..>`) also runs their validation, so a
/// decoded share is always internally consistent.
pub fn decode<T: DeserializeOwned>(expected: BlobKind, bytes: &[u8]) -> Result<T> {
    let kind = kind_of(bytes)?;
    if kind != expected {
        return Err(MpcError::input(format!(
            "expected {}, got {}",
            expected.name(),
            kind.name()
        )));
    }
    // The ciborium error text is not included: it may quote decoded content.
    ciborium::from_reader(&bytes[HEADER_LEN..]).map_err(|_| {
        MpcError::input(format!(
            "{} is corrupt or fails validation",
            expected.name()
        ))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn writer_grows_and_keeps_content() {
        let mut w = SecretWriter::with_capacity(1);
        for i in 0..1000u32 {
            io::Write::write_all(&mut w, &i.to_be_bytes()).unwrap();
        }
        let out = w.into_inner();
        assert_eq!(out.len(), 4000);
        assert_eq!(&out[4..8], &1u32.to_be_bytes());
    }

    #[test]
    fn kind_is_checked() {
        let blob = encode(BlobKind::Primes, &(1u8, 2u8)).unwrap();
        assert_eq!(kind_of(&blob).unwrap(), BlobKind::Primes);
        assert_eq!(decode::<(u8, u8)>(BlobKind::Primes, &blob).unwrap(), (1, 2));
        let err = decode::<(u8, u8)>(BlobKind::KeyShare, &blob).unwrap_err();
        assert!(err.to_string().contains("expected key share"));
        assert!(kind_of(b"nope").is_err());
        assert!(decode::<(u8, u8)>(BlobKind::Primes, &blob[..7]).is_err());
    }

    #[test]
    fn tags_roundtrip() {
        for kind in [
            BlobKind::Primes,
            BlobKind::CoreShare,
            BlobKind::AuxInfo,
            BlobKind::KeyShare,
            BlobKind::Presignature,
            BlobKind::PartialSignature,
        ] {
            assert_eq!(BlobKind::from_tag(kind.tag()), Some(kind));
        }
        assert_eq!(BlobKind::from_tag(7), None);
    }
}
