//! The one error type of the crate.
//!
//! Messages are written so that they never contain secret material: they are built from our own
//! static text, public numbers (party indices, lengths) and the `Display` text of cggmp21's error
//! chain, whose variants carry only protocol-level reasons and party indices.

use std::fmt;

/// What went wrong, coarsely, so callers (and the Python binding) can branch on it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorKind {
    /// A caller-supplied argument is invalid (wrong length, wrong blob kind, bad index, ...).
    InvalidInput,
    /// A received protocol message could not be decoded or does not belong to this session.
    InvalidMessage,
    /// The protocol itself failed (a party misbehaved, a proof did not verify, ...).
    Protocol,
    /// The session was used out of order (e.g. `handle` before `start`, `result` before `done`).
    State,
    /// A bug in this crate or in a dependency (includes caught panics).
    Internal,
}

/// Error returned by every fallible function of this crate.
#[derive(Clone, PartialEq, Eq)]
pub struct MpcError {
    kind: ErrorKind,
    message: String,
}

impl MpcError {
    pub(crate) fn new(kind: ErrorKind, message: impl Into<String>) -> Self {
        Self {
            kind,
            message: message.into(),
        }
    }

    pub(crate) fn input(message: impl Into<String>) -> Self {
        Self::new(ErrorKind::InvalidInput, message)
    }

    pub(crate) fn message(message: impl Into<String>) -> Self {
        Self::new(ErrorKind::InvalidMessage, message)
    }

    pub(crate) fn state(message: impl Into<String>) -> Self {
        Self::new(ErrorKind::State, message)
    }

    pub(crate) fn internal(message: impl Into<String>) -> Self {
        Self::new(ErrorKind::Internal, message)
    }

    /// A protocol failure, with cggmp21's error chain (`a: b: c`) appended.
    pub(crate) fn protocol(context: &str, err: &(dyn std::error::Error + 'static)) -> Self {
        Self::new(
            ErrorKind::Protocol,
            format!("{context}: {}", error_chain(err)),
        )
    }

    /// The kind of error.
    pub fn kind(&self) -> ErrorKind {
        self.kind
    }

    /// Human readable description (never contains secrets).
    pub fn message_text(&self) -> &str {
        &self.message
    }
}

/// Joins the `Display` texts of an error and its sources.
pub(crate) fn error_chain(err: &(dyn std::error::Error + 'static)) -> String {
    let mut text = err.to_string();
    let mut source = err.source();
    while let Some(inner) = source {
        let part = inner.to_string();
        if !text.ends_with(&part) {
            text.push_str(": ");
            text.push_str(&part);
        }
        source = inner.source();
    }
    text
}

impl fmt::Display for MpcError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl fmt::Debug for MpcError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "MpcError({:?}: {})", self.kind, self.message)
    }
}

impl std::error::Error for MpcError {}

/// Result alias used across the crate.
pub type Result<T, E = MpcError> = std::result::Result<T, E>;

/// Runs `f`, turning a panic into [`ErrorKind::Internal`] so that no panic ever crosses the FFI
/// boundary. The panic payload is dropped unread: it could in theory mention data we hold.
pub(crate) fn catch_panic<T>(what: &str, f: impl FnOnce() -> Result<T>) -> Result<T> {
    match std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)) {
        Ok(result) => result,
        Err(_payload) => Err(MpcError::internal(format!(
            "internal error (panic) during {what}"
        ))),
    }
}
