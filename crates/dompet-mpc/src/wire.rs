//! The opaque message envelope that travels between parties.
//!
//! ```text
//! offset size
//!   0     4   magic "DMPM"
//!   4     1   format version (1)
//!   5     1   protocol tag (see [`Protocol`])
//!   6     8   execution tag: SHA-256("dompet-mpc/eid/v1" || execution_id)[..8]
//!  14     2   sender, party index at key generation (big endian)
//!  16     2   recipient, party index at key generation, 0xFFFF = broadcast
//!  18     ..  payload: the cggmp21 protocol message, CBOR
//! ```
//!
//! Party indices in the envelope are always the *key generation* indices (0, 1, 2), also in
//! signing and presigning where cggmp21 internally numbers the signers 0..t. A transport can therefore route by
//! `recipient` without knowing which protocol is running.
//!
//! The header is routing information only: the transport must authenticate the sender and
//! encrypt peer-to-peer messages (cggmp21 requires both), and must check that the `sender` it
//! delivers matches the authenticated peer.

use sha2::{Digest, Sha256};

use crate::error::{MpcError, Result};

const MAGIC: &[u8; 4] = b"DMPM";
const VERSION: u8 = 1;
/// Size of the fixed header.
pub const HEADER_LEN: usize = 18;
const BROADCAST: u16 = 0xFFFF;

/// The protocols whose messages travel in envelopes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Protocol {
    /// Distributed key generation (threshold, core shares).
    Keygen,
    /// Auxiliary info (Paillier keys, ring-Pedersen parameters) generation.
    AuxInfo,
    /// Threshold signing.
    Signing,
    /// Presignature generation (the offline part of signing).
    Presigning,
}

impl Protocol {
    fn tag(self) -> u8 {
        match self {
            Protocol::Keygen => 1,
            Protocol::AuxInfo => 2,
            Protocol::Signing => 3,
            Protocol::Presigning => 4,
        }
    }

    fn from_tag(tag: u8) -> Option<Self> {
        match tag {
            1 => Some(Protocol::Keygen),
            2 => Some(Protocol::AuxInfo),
            3 => Some(Protocol::Signing),
            4 => Some(Protocol::Presigning),
            _ => None,
        }
    }

    /// Lower-case name, used in messages and by the Python binding.
    pub fn name(self) -> &'static str {
        match self {
            Protocol::Keygen => "keygen",
            Protocol::AuxInfo => "aux_info",
            Protocol::Signing => "signing",
            Protocol::Presigning => "presigning",
        }
    }
}

/// Short, non-secret fingerprint of an execution id, carried in every envelope so that a message
/// delivered to the wrong session is rejected with a clear error instead of a failed proof.
pub fn execution_tag(execution_id: &[u8]) -> [u8; 8] {
    let digest = Sha256::new()
        .chain_update(b"dompet-mpc/eid/v1")
        .chain_update(execution_id)
        .finalize();
    let mut tag = [0u8; 8];
    tag.copy_from_slice(&digest[..8]);
    tag
}

/// A decoded envelope header plus the (still encoded) payload.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Envelope<'a> {
    /// Protocol the message belongs to.
    pub protocol: Protocol,
    /// Execution fingerprint, see [`execution_tag`].
    pub execution_tag: [u8; 8],
    /// Sender's key generation index.
    pub sender: u16,
    /// Recipient's key generation index, `None` for a broadcast.
    pub recipient: Option<u16>,
    /// CBOR-encoded cggmp21 message.
    pub payload: &'a [u8],
}

impl<'a> Envelope<'a> {
    /// Parses the header; does not look at the payload.
    pub fn parse(bytes: &'a [u8]) -> Result<Self> {
        if bytes.len() < HEADER_LEN {
            return Err(MpcError::message(format!(
                "message too short: {} bytes, a header alone is {HEADER_LEN}",
                bytes.len()
            )));
        }
        if &bytes[0..4] != MAGIC {
            return Err(MpcError::message("not a dompet-mpc message (bad magic)"));
        }
        if bytes[4] != VERSION {
            return Err(MpcError::message(format!(
                "unsupported message format version {} (expected {VERSION})",
                bytes[4]
            )));
        }
        let protocol = Protocol::from_tag(bytes[5])
            .ok_or_else(|| MpcError::message(format!("unknown protocol tag {}", bytes[5])))?;
        let mut execution_tag = [0u8; 8];
        execution_tag.copy_from_slice(&bytes[6..14]);
        let sender = u16::from_be_bytes([bytes[14], bytes[15]]);
        let recipient = match u16::from_be_bytes([bytes[16], bytes[17]]) {
            BROADCAST => None,
            index => Some(index),
        };
        if sender == BROADCAST {
            return Err(MpcError::message("invalid sender index 65535"));
        }
        Ok(Self {
            protocol,
            execution_tag,
            sender,
            recipient,
            payload: &bytes[HEADER_LEN..],
        })
    }

    /// Serialises header and payload.
    pub fn encode(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(HEADER_LEN + self.payload.len());
        out.extend_from_slice(MAGIC);
        out.push(VERSION);
        out.push(self.protocol.tag());
        out.extend_from_slice(&self.execution_tag);
        out.extend_from_slice(&self.sender.to_be_bytes());
        out.extend_from_slice(&self.recipient.unwrap_or(BROADCAST).to_be_bytes());
        out.extend_from_slice(self.payload);
        out
    }
}

/// Recipient of an encoded message: `Some(index)` for peer-to-peer, `None` for broadcast.
pub fn recipient(message: &[u8]) -> Result<Option<u16>> {
    Ok(Envelope::parse(message)?.recipient)
}

/// Sender of an encoded message (as written by the sender; the transport must authenticate it).
pub fn sender(message: &[u8]) -> Result<u16> {
    Ok(Envelope::parse(message)?.sender)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn roundtrip() {
        let env = Envelope {
            protocol: Protocol::Signing,
            execution_tag: execution_tag(b"eid"),
            sender: 2,
            recipient: Some(0),
            payload: b"payload",
        };
        let bytes = env.encode();
        assert_eq!(Envelope::parse(&bytes).unwrap(), env);
        assert_eq!(recipient(&bytes).unwrap(), Some(0));
        assert_eq!(sender(&bytes).unwrap(), 2);

        let broadcast = Envelope {
            recipient: None,
            ..env
        }
        .encode();
        assert_eq!(recipient(&broadcast).unwrap(), None);
    }

    #[test]
    fn protocol_tags_roundtrip() {
        for protocol in [
            Protocol::Keygen,
            Protocol::AuxInfo,
            Protocol::Signing,
            Protocol::Presigning,
        ] {
            assert_eq!(Protocol::from_tag(protocol.tag()), Some(protocol));
        }
        assert_eq!(Protocol::Presigning.name(), "presigning");
    }

    #[test]
    fn rejects_garbage() {
        assert!(recipient(b"").is_err());
        assert!(recipient(&[0u8; 64]).is_err());
        let mut bytes = Envelope {
            protocol: Protocol::Keygen,
            execution_tag: [0; 8],
            sender: 0,
            recipient: None,
            payload: b"",
        }
        .encode();
        bytes[4] = 9;
        assert!(recipient(&bytes).is_err());
        bytes[4] = VERSION;
        bytes[5] = 42;
        assert!(recipient(&bytes).is_err());
    }
}
