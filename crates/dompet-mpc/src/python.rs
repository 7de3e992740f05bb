//! Python binding (`import dompet_mpc`). See README.md for the API.
//!
//! Every function converts errors to `dompet_mpc.MpcError` (or a subclass) and catches panics,
//! so no Rust panic crosses into Python. Heavy work runs with the GIL released.

use std::sync::{Mutex, TryLockError};

use pyo3::exceptions::{PyException, PyTypeError};
use pyo3::prelude::*;
use pyo3::types::{PyByteArray, PyBytes, PyDict};
use zeroize::Zeroizing;

use crate::error::{catch_panic, ErrorKind};
use crate::{eth, gmp_alloc, protocols, wire, BlobKind};

pyo3::create_exception!(
    dompet_mpc,
    MpcError,
    PyException,
    "Raised by dompet_mpc on any failure. Messages never contain secret material."
);
pyo3::create_exception!(
    dompet_mpc,
    InvalidInputError,
    MpcError,
    "An argument is invalid (wrong length, wrong blob kind, index out of range, ...)."
);
pyo3::create_exception!(
    dompet_mpc,
    InvalidMessageError,
    MpcError,
    "A received message is malformed, misaddressed or from another run; the session is unchanged."
);
pyo3::create_exception!(
    dompet_mpc,
    ProtocolError,
    MpcError,
    "The protocol failed (e.g. a party misbehaved); the session cannot continue."
);
pyo3::create_exception!(
    dompet_mpc,
    SessionStateError,
    MpcError,
    "A session method was called out of order (or the session failed earlier)."
);

fn to_py(err: crate::MpcError) -> PyErr {
    let text = err.to_string();
    match err.kind() {
        ErrorKind::InvalidInput => InvalidInputError::new_err(text),
        ErrorKind::InvalidMessage => InvalidMessageError::new_err(text),
        ErrorKind::Protocol => ProtocolError::new_err(text),
        ErrorKind::State => SessionStateError::new_err(text),
        ErrorKind::Internal => MpcError::new_err(text),
    }
}

fn bytes_list<'py>(py: Python<'py>, items: Vec<Zeroizing<Vec<u8>>>) -> Vec<Bound<'py, PyBytes>> {
    items.iter().map(|m| PyBytes::new(py, m)).collect()
}

/// One party's run of one protocol (created by `keygen_session`, `aux_info_session`,
/// `signing_session`, `presign_session`). Feed it every message addressed to this party (or broadcast) and send
/// what it returns; `recipient(msg)` tells where.
#[pyclass(module = "dompet_mpc", name = "Session", frozen)]
struct PySession {
    inner: Mutex<crate::Session>,
    protocol: &'static str,
    party: u16,
    parties: Vec<u16>,
}

impl PySession {
    fn wrap(session: crate::Session) -> Self {
        Self {
            protocol: session.protocol().name(),
            party: session.party(),
            parties: session.parties().to_vec(),
            inner: Mutex::new(session),
        }
    }

    fn with_session<T>(
        &self,
        f: impl FnOnce(&mut crate::Session) -> crate::Result<T>,
    ) -> crate::Result<T> {
        let mut guard = match self.inner.try_lock() {
            Ok(guard) => guard,
            Err(TryLockError::WouldBlock) => {
                return Err(crate::MpcError::new(
                    ErrorKind::State,
                    "session is in use by another thread",
                ))
            }
            // A panic is caught inside the session, so poisoning means a bug; refuse to go on.
            Err(TryLockError::Poisoned(_)) => {
                return Err(crate::MpcError::internal(
                    "session is unusable after an internal error",
                ))
            }
        };
        f(&mut guard)
    }
}

#[pymethods]
impl PySession {
    /// start() -> list[bytes]: begins the protocol, returns the first messages to send.
    fn start<'py>(&self, py: Python<'py>) -> PyResult<Vec<Bound<'py, PyBytes>>> {
        let out = py
            .detach(|| self.with_session(|s| s.start()))
            .map_err(to_py)?;
        Ok(bytes_list(py, out))
    }

    /// handle(msg: bytes) -> list[bytes]: processes one received message, returns messages to send.
    fn handle<'py>(&self, py: Python<'py>, msg: &[u8]) -> PyResult<Vec<Bound<'py, PyBytes>>> {
        let out = py
            .detach(|| self.with_session(|s| s.handle(msg)))
            .map_err(to_py)?;
        Ok(bytes_list(py, out))
    }

    /// done() -> bool: the protocol finished successfully and result() is available.
    fn done(&self) -> PyResult<bool> {
        self.with_session(|s| Ok(s.done())).map_err(to_py)
    }

    /// failed() -> bool: the protocol failed; the session cannot continue.
    fn failed(&self) -> PyResult<bool> {
        self.with_session(|s| Ok(s.failed())).map_err(to_py)
    }

    /// result() -> bytes: the serialised output (secret for every protocol but signing).
    fn result<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyBytes>> {
        let out = self.with_session(|s| s.result()).map_err(to_py)?;
        Ok(PyBytes::new(py, &out))
    }

    /// Protocol name: "keygen", "aux_info", "signing" or "presigning".
    #[getter]
    fn protocol(&self) -> &'static str {
        self.protocol
    }

    /// This party's index (at key generation).
    #[getter]
    fn party_index(&self) -> u16 {
        self.party
    }

    /// Key generation indices of all participants of this run.
    #[getter]
    fn parties(&self) -> Vec<u16> {
        self.parties.clone()
    }

    fn __repr__(&self) -> String {
        format!(
            "<dompet_mpc.Session protocol={} party={} parties={:?}>",
            self.protocol, self.party, self.parties
        )
    }
}

/// keygen_session(execution_id, party_index, n=3, threshold=2, hd=False) -> Session
///
/// Distributed key generation; result() is this party's core share (secret). hd=True: the key
/// also gets a chain code (every party must pass the same), so it can sign for non-hardened
/// child keys (signing_session's derivation_path); such a key never presigns.
#[pyfunction]
#[pyo3(signature = (execution_id, party_index, n = 3, threshold = 2, hd = false))]
fn keygen_session(
    execution_id: &[u8],
    party_index: u16,
    n: u16,
    threshold: u16,
    hd: bool,
) -> PyResult<PySession> {
    catch_panic("keygen", || {
        protocols::keygen(execution_id, party_index, n, threshold, hd)
    })
    .map(PySession::wrap)
    .map_err(to_py)
}

/// aux_info_session(execution_id, party_index, primes, n=3) -> Session
///
/// Aux info generation with primes from pregenerate_primes(); result() is this party's aux info
/// (secret: contains its Paillier secret key).
#[pyfunction]
#[pyo3(signature = (execution_id, party_index, primes, n = 3))]
fn aux_info_session(
    py: Python<'_>,
    execution_id: &[u8],
    party_index: u16,
    primes: &[u8],
    n: u16,
) -> PyResult<PySession> {
    py.detach(|| {
        catch_panic("aux info", || {
            protocols::aux_info(execution_id, party_index, n, primes)
        })
    })
    .map(PySession::wrap)
    .map_err(to_py)
}

/// signing_session(execution_id, key_share, signers, digest, derivation_path=None) -> Session
///
/// Signs a 32-byte digest with exactly `threshold` signers (key generation indices). result() is
/// 65 bytes r || s || recovery_id, low-s; see decode_signature(). derivation_path: non-hardened
/// indices (< 2^31) of the child key to sign with, for a key generated with hd=True (the same on
/// every signer); the result is verified against derive_public_key(...) of that path.
#[pyfunction]
#[pyo3(signature = (execution_id, key_share, signers, digest, derivation_path = None))]
fn signing_session(
    py: Python<'_>,
    execution_id: &[u8],
    key_share: &[u8],
    signers: Vec<u16>,
    digest: &[u8],
    derivation_path: Option<Vec<u32>>,
) -> PyResult<PySession> {
    py.detach(|| {
        catch_panic("signing", || {
            protocols::signing(
                execution_id,
                key_share,
                &signers,
                digest,
                derivation_path.as_deref(),
            )
        })
    })
    .map(PySession::wrap)
    .map_err(to_py)
}

/// presign_session(execution_id, key_share, signers) -> Session
///
/// Generates a presignature with exactly `threshold` signers (key generation indices). result()
/// is this party's presignature share (secret, SINGLE USE) for issue_partial_signature(). A key
/// generated with hd=True is refused (InvalidInputError): HD keys sign only in full runs.
#[pyfunction]
fn presign_session(
    py: Python<'_>,
    execution_id: &[u8],
    key_share: &[u8],
    signers: Vec<u16>,
) -> PyResult<PySession> {
    py.detach(|| {
        catch_panic("presigning", || {
            protocols::presign(execution_id, key_share, &signers)
        })
    })
    .map(PySession::wrap)
    .map_err(to_py)
}

/// issue_partial_signature(presignature, digest) -> bytes
///
/// This party's partial signature (public) of a 32-byte digest. Never use a presignature twice:
/// the caller must mark it used durably before releasing the result.
#[pyfunction]
fn issue_partial_signature<'py>(
    py: Python<'py>,
    presignature: &[u8],
    digest: &[u8],
) -> PyResult<Bound<'py, PyBytes>> {
    let out = py
        .detach(|| protocols::issue_partial_signature(presignature, digest))
        .map_err(to_py)?;
    Ok(PyBytes::new(py, &out))
}

/// combine_signatures(partials, public_key, digest) -> bytes
///
/// Combines one partial signature per signer of a presignature and verifies the result against
/// `public_key` (the wallet's SEC1 key, 33 or 65 bytes, e.g. public_key(share)). Returns 65 bytes
/// r || s || recovery_id like signing_session. Raises ProtocolError("signature verification
/// failed") if the combined signature does not verify.
#[pyfunction]
fn combine_signatures<'py>(
    py: Python<'py>,
    partials: Vec<Bound<'py, PyBytes>>,
    public_key: &[u8],
    digest: &[u8],
) -> PyResult<Bound<'py, PyBytes>> {
    // Partial signatures are public: plain copies are fine.
    let partials: Vec<Vec<u8>> = partials.iter().map(|p| p.as_bytes().to_vec()).collect();
    let out = py
        .detach(|| protocols::combine_signatures(&partials, public_key, digest))
        .map_err(to_py)?;
    Ok(PyBytes::new(py, &out))
}

/// presignature_info(presignature) -> dict: non-secret facts about a presignature share
/// (party_index, signers, public_key, address, presignature_id).
#[pyfunction]
fn presignature_info<'py>(py: Python<'py>, presignature: &[u8]) -> PyResult<Bound<'py, PyDict>> {
    let info = protocols::presignature_info(presignature).map_err(to_py)?;
    let dict = PyDict::new(py);
    dict.set_item("party_index", info.party)?;
    dict.set_item("signers", info.signers)?;
    dict.set_item("public_key", PyBytes::new(py, &info.public_key))?;
    dict.set_item("address", info.address)?;
    dict.set_item("presignature_id", PyBytes::new(py, &info.presignature_id))?;
    Ok(dict)
}

/// pregenerate_primes() -> bytes
///
/// Two safe primes for one party's Paillier key (slow; secret). Use each result once.
#[pyfunction]
fn pregenerate_primes(py: Python<'_>) -> PyResult<Bound<'_, PyBytes>> {
    let out = py.detach(protocols::pregenerate_primes).map_err(to_py)?;
    Ok(PyBytes::new(py, &out))
}

/// complete_key_share(core_share, aux_info) -> bytes
///
/// Core share + the same party's aux info -> validated key share (secret).
#[pyfunction]
fn complete_key_share<'py>(
    py: Python<'py>,
    core_share: &[u8],
    aux_info: &[u8],
) -> PyResult<Bound<'py, PyBytes>> {
    let out = py
        .detach(|| protocols::complete_key_share(core_share, aux_info))
        .map_err(to_py)?;
    Ok(PyBytes::new(py, &out))
}

/// trusted_dealer_split(private_key, n=3, threshold=2) -> list[bytes]
///
/// Key import: splits a 32-byte private key (bytes or bytearray) into n core shares, in party
/// order. The caller must wipe its copy of the key (use a bytearray and zero it).
#[pyfunction]
#[pyo3(signature = (private_key, n = 3, threshold = 2))]
fn trusted_dealer_split<'py>(
    py: Python<'py>,
    private_key: &Bound<'py, PyAny>,
    n: u16,
    threshold: u16,
) -> PyResult<Vec<Bound<'py, PyBytes>>> {
    let key: Zeroizing<Vec<u8>> = if let Ok(b) = private_key.cast::<PyBytes>() {
        Zeroizing::new(b.as_bytes().to_vec())
    } else if let Ok(b) = private_key.cast::<PyByteArray>() {
        Zeroizing::new(b.to_vec())
    } else {
        return Err(PyTypeError::new_err(
            "private_key must be bytes or bytearray",
        ));
    };
    let shares = py
        .detach(|| protocols::trusted_dealer_split(&key, n, threshold))
        .map_err(to_py)?;
    Ok(bytes_list(py, shares))
}

/// public_key(share) -> bytes: uncompressed SEC1 public key (65 bytes) of a core/key share.
#[pyfunction]
fn public_key<'py>(py: Python<'py>, share: &[u8]) -> PyResult<Bound<'py, PyBytes>> {
    let info = protocols::share_info(share).map_err(to_py)?;
    Ok(PyBytes::new(py, &info.public_key))
}

/// eth_address(share) -> str: EIP-55 checksummed Ethereum address of a core/key share.
#[pyfunction]
fn eth_address(share: &[u8]) -> PyResult<String> {
    Ok(protocols::share_info(share).map_err(to_py)?.address)
}

/// derive_public_key(public_key, chain_code, path) -> bytes
///
/// Compressed SEC1 public key (33 bytes) of the BIP32/SLIP-10 non-hardened child at `path` below
/// the key `public_key` (SEC1, 33 or 65 bytes) with `chain_code` (32 bytes, share_info's): the key
/// signing_session(..., derivation_path=path) signs for. InvalidInputError for a hardened index.
#[pyfunction]
fn derive_public_key<'py>(
    py: Python<'py>,
    public_key: &[u8],
    chain_code: &[u8],
    path: Vec<u32>,
) -> PyResult<Bound<'py, PyBytes>> {
    let out = protocols::derive_public_key(public_key, chain_code, &path).map_err(to_py)?;
    Ok(PyBytes::new(py, &out))
}

/// share_info(share) -> dict: non-secret facts about a core/key share
/// (kind, party_index, n, threshold, public_key, address, chain_code: bytes or None).
#[pyfunction]
fn share_info<'py>(py: Python<'py>, share: &[u8]) -> PyResult<Bound<'py, PyDict>> {
    let info = protocols::share_info(share).map_err(to_py)?;
    let dict = PyDict::new(py);
    let kind = match info.kind {
        BlobKind::CoreShare => "core_share",
        BlobKind::KeyShare => "key_share",
        BlobKind::AuxInfo => "aux_info",
        BlobKind::Primes => "primes",
        BlobKind::Presignature => "presignature",
        BlobKind::PartialSignature => "partial_signature",
    };
    dict.set_item("kind", kind)?;
    dict.set_item("party_index", info.party)?;
    dict.set_item("n", info.n)?;
    dict.set_item("threshold", info.threshold)?;
    dict.set_item("public_key", PyBytes::new(py, &info.public_key))?;
    dict.set_item("address", info.address)?;
    dict.set_item(
        "chain_code",
        info.chain_code.map(|code| PyBytes::new(py, &code)),
    )?;
    Ok(dict)
}

/// recipient(msg) -> int | None: party index the message is for; None = broadcast (all peers).
#[pyfunction]
fn recipient(msg: &[u8]) -> PyResult<Option<u16>> {
    wire::recipient(msg).map_err(to_py)
}

/// sender(msg) -> int: party index that (claims to have) sent the message.
#[pyfunction]
fn sender(msg: &[u8]) -> PyResult<u16> {
    wire::sender(msg).map_err(to_py)
}

/// decode_signature(sig) -> tuple[int, int, int]: (r, s, recovery_id) from a signing result.
#[pyfunction]
fn decode_signature(py: Python<'_>, sig: &[u8]) -> PyResult<(Py<PyAny>, Py<PyAny>, u8)> {
    let (r, s, v) = eth::split_signature(sig).map_err(to_py)?;
    let int_type = py.get_type::<pyo3::types::PyInt>();
    let from_bytes = int_type.getattr("from_bytes")?;
    let r = from_bytes.call1((PyBytes::new(py, &r), "big"))?.unbind();
    let s = from_bytes.call1((PyBytes::new(py, &s), "big"))?.unbind();
    Ok((r, s, v))
}

/// Replaces the panic hook of this library's Rust runtime: report where, never what (a panic
/// message could in theory mention data). Panics are still caught and raised as MpcError.
fn install_quiet_panic_hook() {
    std::panic::set_hook(Box::new(|info| {
        if let Some(location) = info.location() {
            eprintln!(
                "dompet_mpc: internal error at {}:{} (details suppressed)",
                location.file(),
                location.line()
            );
        } else {
            eprintln!("dompet_mpc: internal error (details suppressed)");
        }
    }));
}

#[pymodule]
fn dompet_mpc(m: &Bound<'_, PyModule>) -> PyResult<()> {
    gmp_alloc::install();
    install_quiet_panic_hook();
    let py = m.py();
    m.add("MpcError", py.get_type::<MpcError>())?;
    m.add("InvalidInputError", py.get_type::<InvalidInputError>())?;
    m.add("InvalidMessageError", py.get_type::<InvalidMessageError>())?;
    m.add("ProtocolError", py.get_type::<ProtocolError>())?;
    m.add("SessionStateError", py.get_type::<SessionStateError>())?;
    m.add_class::<PySession>()?;
    m.add_function(wrap_pyfunction!(keygen_session, m)?)?;
    m.add_function(wrap_pyfunction!(aux_info_session, m)?)?;
    m.add_function(wrap_pyfunction!(signing_session, m)?)?;
    m.add_function(wrap_pyfunction!(presign_session, m)?)?;
    m.add_function(wrap_pyfunction!(issue_partial_signature, m)?)?;
    m.add_function(wrap_pyfunction!(combine_signatures, m)?)?;
    m.add_function(wrap_pyfunction!(presignature_info, m)?)?;
    m.add_function(wrap_pyfunction!(pregenerate_primes, m)?)?;
    m.add_function(wrap_pyfunction!(complete_key_share, m)?)?;
    m.add_function(wrap_pyfunction!(trusted_dealer_split, m)?)?;
    m.add_function(wrap_pyfunction!(public_key, m)?)?;
    m.add_function(wrap_pyfunction!(eth_address, m)?)?;
    m.add_function(wrap_pyfunction!(share_info, m)?)?;
    m.add_function(wrap_pyfunction!(derive_public_key, m)?)?;
    m.add_function(wrap_pyfunction!(recipient, m)?)?;
    m.add_function(wrap_pyfunction!(sender, m)?)?;
    m.add_function(wrap_pyfunction!(decode_signature, m)?)?;
    m.add("SIGNATURE_LEN", eth::SIGNATURE_LEN)?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
