//! End-to-end tests of the protocols through the public API, with an in-memory router.
//!
//! Prime generation (tens of seconds) is skipped by using the public, *insecure* fixture primes
//! in `testdata/insecure_test_primes.hex`; everything else runs for real. One aux info run and
//! one key generation are shared by all tests.

use std::collections::VecDeque;
use std::sync::OnceLock;

use dompet_mpc::{BlobKind, ErrorKind, Session};
use k256::ecdsa::{signature::hazmat::PrehashVerifier, RecoveryId, Signature, VerifyingKey};
use sha3::{Digest, Keccak256};
use zeroize::Zeroizing;

const TEST_PRIMES: &str = include_str!("../testdata/insecure_test_primes.hex");

fn test_primes() -> Vec<Vec<u8>> {
    TEST_PRIMES
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| from_hex(l.trim()))
        .collect()
}

fn from_hex(text: &str) -> Vec<u8> {
    assert!(text.len() % 2 == 0, "odd hex length");
    (0..text.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&text[i..i + 2], 16).expect("fixture is hex"))
        .collect()
}

fn to_hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// Delivers every message until no party has anything left to send.
fn run(mut sessions: Vec<Session>) -> Vec<Zeroizing<Vec<u8>>> {
    let mut queue: VecDeque<Zeroizing<Vec<u8>>> = VecDeque::new();
    for s in &mut sessions {
        queue.extend(s.start().expect("start"));
    }
    while let Some(msg) = queue.pop_front() {
        let from = dompet_mpc::sender(&msg).unwrap();
        let to = dompet_mpc::recipient(&msg).unwrap();
        for s in &mut sessions {
            let deliver = match to {
                Some(j) => s.party() == j,
                None => s.party() != from,
            };
            if deliver {
                queue.extend(s.handle(&msg).expect("handle"));
            }
        }
    }
    sessions
        .iter()
        .map(|s| {
            assert!(s.done(), "{s:?} did not finish");
            s.result().unwrap()
        })
        .collect()
}

/// Like [`run`], but every party runs in its own thread (sessions are `Send`), so the heavy
/// aux info generation uses both cores.
fn run_threaded(sessions: Vec<Session>) -> Vec<Zeroizing<Vec<u8>>> {
    use std::sync::mpsc;
    let (senders, receivers): (Vec<_>, Vec<_>) = sessions
        .iter()
        .map(|_| mpsc::channel::<Zeroizing<Vec<u8>>>())
        .unzip();
    let index: Vec<u16> = sessions.iter().map(Session::party).collect();
    let route = move |senders: &[mpsc::Sender<Zeroizing<Vec<u8>>>],
                      msgs: Vec<Zeroizing<Vec<u8>>>| {
        for msg in msgs {
            let from = dompet_mpc::sender(&msg).unwrap();
            let to = dompet_mpc::recipient(&msg).unwrap();
            for (k, tx) in senders.iter().enumerate() {
                let party = index[k];
                if to.map_or(party != from, |j| j == party) {
                    // A finished party may have dropped its receiver; that is fine.
                    let _ = tx.send(msg.clone());
                }
            }
        }
    };
    let handles: Vec<_> = sessions
        .into_iter()
        .zip(receivers)
        .map(|(mut session, rx)| {
            let senders = senders.clone();
            let route = route.clone();
            std::thread::spawn(move || {
                route(&senders, session.start().expect("start"));
                while !session.done() {
                    let msg = rx.recv().expect("peer hung up");
                    route(&senders, session.handle(&msg).expect("handle"));
                }
                session.result().unwrap()
            })
        })
        .collect();
    handles.into_iter().map(|h| h.join().unwrap()).collect()
}

struct Fixture {
    aux: Vec<Zeroizing<Vec<u8>>>,
    key_shares: Vec<Zeroizing<Vec<u8>>>,
}

fn fixture() -> &'static Fixture {
    static FIXTURE: OnceLock<Fixture> = OnceLock::new();
    FIXTURE.get_or_init(|| {
        let primes = test_primes();
        assert_eq!(primes.len(), 3, "fixture must hold 3 prime pairs");
        let started = std::time::Instant::now();
        let aux = run_threaded(
            (0..3u16)
                .map(|i| dompet_mpc::aux_info(b"test-aux", i, 3, &primes[usize::from(i)]).unwrap())
                .collect(),
        );
        eprintln!("aux info generation (3 parties): {:?}", started.elapsed());
        let started = std::time::Instant::now();
        let cores = run((0..3u16)
            .map(|i| dompet_mpc::keygen(b"test-keygen", i, 3, 2, false).unwrap())
            .collect());
        eprintln!("key generation (3 parties): {:?}", started.elapsed());
        let key_shares = cores
            .iter()
            .zip(&aux)
            .map(|(core, aux)| dompet_mpc::complete_key_share(core, aux).unwrap())
            .collect();
        Fixture { aux, key_shares }
    })
}

/// Keys of the group of [`fixture`] (same aux info), generated with a chain code.
fn hd_key_shares() -> &'static Vec<Zeroizing<Vec<u8>>> {
    static SHARES: OnceLock<Vec<Zeroizing<Vec<u8>>>> = OnceLock::new();
    SHARES.get_or_init(|| {
        let fx = fixture();
        let cores = run((0..3u16)
            .map(|i| dompet_mpc::keygen(b"test-keygen-hd", i, 3, 2, true).unwrap())
            .collect());
        cores
            .iter()
            .zip(&fx.aux)
            .map(|(core, aux)| dompet_mpc::complete_key_share(core, aux).unwrap())
            .collect()
    })
}

fn sign(
    key_shares: &[Zeroizing<Vec<u8>>],
    signers: &[u16],
    digest: &[u8; 32],
    eid: &[u8],
) -> Vec<u8> {
    let started = std::time::Instant::now();
    let sigs = run(signers
        .iter()
        .map(|&i| {
            dompet_mpc::signing(eid, &key_shares[usize::from(i)], signers, digest, None).unwrap()
        })
        .collect());
    assert!(sigs.windows(2).all(|w| w[0] == w[1]), "signers disagree");
    eprintln!("signing {signers:?}: {:?}", started.elapsed());
    sigs[0].to_vec()
}

/// Ethereum address of a SEC1 public key (any encoding), lower-case hex with 0x.
fn address_of(public_key: &[u8]) -> String {
    let key = VerifyingKey::from_sec1_bytes(public_key).unwrap();
    let point = key.to_encoded_point(false);
    format!(
        "0x{}",
        to_hex(&Keccak256::digest(&point.as_bytes()[1..])[12..])
    )
}

/// Verifies like `ecrecover`: low s, recovery to the expected key and address.
fn check_signature(sig: &[u8], digest: &[u8; 32], public_key: &[u8], address: &str) {
    assert_eq!(sig.len(), 65);
    let signature = Signature::from_slice(&sig[..64]).unwrap();
    assert!(signature.normalize_s().is_none(), "s must be low");
    let key = VerifyingKey::from_sec1_bytes(public_key).unwrap();
    key.verify_prehash(digest, &signature).unwrap();
    assert!(sig[64] <= 1, "recovery id must be 0 or 1");
    let recovered = VerifyingKey::recover_from_prehash(
        digest,
        &signature,
        RecoveryId::from_byte(sig[64]).unwrap(),
    )
    .unwrap();
    assert_eq!(recovered, key);
    let point = recovered.to_encoded_point(false);
    let hash = Keccak256::digest(&point.as_bytes()[1..]);
    assert_eq!(to_hex(&hash[12..]), address[2..].to_lowercase());
}

#[test]
fn keygen_then_sign_with_every_pair() {
    let fx = fixture();
    let info: Vec<_> = fx
        .key_shares
        .iter()
        .map(|s| dompet_mpc::share_info(s).unwrap())
        .collect();
    for (i, inf) in info.iter().enumerate() {
        assert_eq!(usize::from(inf.party), i);
        assert_eq!((inf.n, inf.threshold, inf.kind), (3, 2, BlobKind::KeyShare));
        assert_eq!(inf.public_key, info[0].public_key);
        assert_eq!(
            inf.chain_code, None,
            "a key generated without hd has no chain code"
        );
    }
    for (n, pair) in [[0u16, 1], [0, 2], [1, 2]].iter().enumerate() {
        let digest: [u8; 32] = Keccak256::digest(format!("message {n}")).into();
        let eid = format!("test-sign-{n}");
        let sig = sign(&fx.key_shares, pair, &digest, eid.as_bytes());
        check_signature(&sig, &digest, &info[0].public_key, &info[0].address);
    }
}

#[test]
fn signer_order_does_not_matter() {
    let fx = fixture();
    let digest = [0x42u8; 32];
    let sigs = run(vec![
        dompet_mpc::signing(b"order", &fx.key_shares[2], &[2, 0], &digest, None).unwrap(),
        dompet_mpc::signing(b"order", &fx.key_shares[0], &[0, 2], &digest, None).unwrap(),
    ]);
    let info = dompet_mpc::share_info(&fx.key_shares[0]).unwrap();
    check_signature(&sigs[0], &digest, &info.public_key, &info.address);
}

#[test]
fn trusted_dealer_import_of_0x11() {
    let fx = fixture();
    let key = Zeroizing::new([0x11u8; 32]);
    let cores = dompet_mpc::trusted_dealer_split(&*key, 3, 2).unwrap();
    assert_eq!(cores.len(), 3);
    for (i, core) in cores.iter().enumerate() {
        let info = dompet_mpc::share_info(core).unwrap();
        assert_eq!(info.address, "0x19E7E376E7C213B7E7e7e46cc70A5dD086DAff2A");
        assert_eq!(info.chain_code, None, "an imported key is no HD key");
        assert_eq!(
            (usize::from(info.party), info.kind),
            (i, BlobKind::CoreShare)
        );
    }
    // The group's aux info completes imported shares too (aux info is not tied to a key).
    let shares: Vec<_> = cores
        .iter()
        .zip(&fx.aux)
        .map(|(core, aux)| dompet_mpc::complete_key_share(core, aux).unwrap())
        .collect();
    let digest = [0x99u8; 32];
    let sig = sign(&shares, &[1, 2], &digest, b"import-sign");
    let info = dompet_mpc::share_info(&shares[1]).unwrap();
    check_signature(
        &sig,
        &digest,
        &info.public_key,
        "0x19E7E376E7C213B7E7e7e46cc70A5dD086DAff2A",
    );
}

#[test]
fn trusted_dealer_rejects_bad_keys() {
    for key in [
        &[0u8; 32][..],
        &[0xffu8; 32][..],
        &[1u8; 31][..],
        &[1u8; 33][..],
    ] {
        let err = dompet_mpc::trusted_dealer_split(key, 3, 2).unwrap_err();
        assert_eq!(err.kind(), ErrorKind::InvalidInput, "{err}");
    }
    assert!(dompet_mpc::trusted_dealer_split(&[1u8; 32], 3, 4).is_err());
    assert!(dompet_mpc::trusted_dealer_split(&[1u8; 32], 3, 1).is_err());
}

#[test]
fn complete_key_share_rejects_aux_of_another_party() {
    let fx = fixture();
    let cores = dompet_mpc::trusted_dealer_split(&[7u8; 32], 3, 2).unwrap();
    let err = dompet_mpc::complete_key_share(&cores[0], &fx.aux[1]).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::InvalidInput);
    // Arguments swapped: blob kinds are checked.
    let err = dompet_mpc::complete_key_share(&fx.aux[0], &cores[0]).unwrap_err();
    assert!(err.to_string().contains("expected core key share"), "{err}");
}

#[test]
fn signing_argument_validation() {
    let fx = fixture();
    let share = &fx.key_shares[0];
    let digest = [1u8; 32];
    let cases: [(&[u16], &[u8]); 5] = [
        (&[0], &digest),          // too few
        (&[0, 1, 2], &digest),    // too many
        (&[1, 2], &digest),       // not including the share owner
        (&[0, 5], &digest),       // out of range
        (&[0, 1], &digest[..31]), // digest too short
    ];
    for (signers, d) in cases {
        let err = dompet_mpc::signing(b"x", share, signers, d, None).unwrap_err();
        assert_eq!(err.kind(), ErrorKind::InvalidInput, "{signers:?}: {err}");
    }
    assert!(dompet_mpc::signing(b"", share, &[0, 1], &digest, None).is_err());
    assert!(dompet_mpc::signing(b"x", &fx.aux[0], &[0, 1], &digest, None).is_err());
    assert!(dompet_mpc::signing(b"x", b"garbage", &[0, 1], &digest, None).is_err());
}

#[test]
fn bad_messages_are_errors_not_panics() {
    let fx = fixture();
    let digest = [3u8; 32];
    let mut a =
        dompet_mpc::signing(b"bad-msgs", &fx.key_shares[0], &[0, 1], &digest, None).unwrap();
    let mut b =
        dompet_mpc::signing(b"bad-msgs", &fx.key_shares[1], &[0, 1], &digest, None).unwrap();

    // Order of calls.
    assert_eq!(
        a.handle(b"whatever").unwrap_err().kind(),
        ErrorKind::InvalidMessage
    );
    assert!(a.result().is_err());
    let from_a = a.start().unwrap();
    assert_eq!(a.start().unwrap_err().kind(), ErrorKind::State);
    let from_b = b.start().unwrap();
    assert!(!from_a.is_empty() && !from_b.is_empty());
    let good = from_b[0].clone();

    // Garbage, truncation, wrong execution, wrong protocol, wrong recipient, unknown sender:
    // all rejected without disturbing the session.
    let mut wrong_eid =
        dompet_mpc::signing(b"other-run", &fx.key_shares[1], &[0, 1], &digest, None).unwrap();
    let other_run = wrong_eid.start().unwrap()[0].clone();
    let mut keygen = dompet_mpc::keygen(b"bad-msgs", 1, 3, 2, false).unwrap();
    let keygen_msg = keygen.start().unwrap()[0].clone();
    let mut to_other = good.to_vec();
    to_other[16..18].copy_from_slice(&2u16.to_be_bytes());
    let mut from_stranger = good.to_vec();
    from_stranger[14..16].copy_from_slice(&2u16.to_be_bytes());
    let mut bad_payload = good[..18].to_vec();
    bad_payload.extend_from_slice(b"\xff\x00garbage");
    let cases: Vec<(&str, Vec<u8>)> = vec![
        ("empty", vec![]),
        ("garbage", vec![0xAB; 100]),
        ("truncated header", good[..10].to_vec()),
        ("truncated payload", good[..good.len() / 2].to_vec()),
        ("bad payload", bad_payload),
        ("other execution", other_run.to_vec()),
        ("other protocol", keygen_msg.to_vec()),
        ("other recipient", to_other),
        ("unknown sender", from_stranger),
    ];
    for (name, msg) in cases {
        let err = a.handle(&msg).unwrap_err();
        assert_eq!(err.kind(), ErrorKind::InvalidMessage, "{name}: {err}");
        assert!(!a.failed(), "{name} must not end the session");
    }

    // Own broadcast echoed back: ignored.
    if dompet_mpc::recipient(&from_a[0]).unwrap().is_none() {
        assert!(a.handle(&from_a[0]).unwrap().is_empty());
    }

    // The session still completes after all that.
    let mut queue: VecDeque<_> = from_a.into_iter().chain(from_b).collect();
    let mut sessions = [a, b];
    while let Some(msg) = queue.pop_front() {
        let from = dompet_mpc::sender(&msg).unwrap();
        for s in sessions.iter_mut().filter(|s| s.party() != from) {
            queue.extend(s.handle(&msg).unwrap());
        }
    }
    assert!(sessions.iter().all(Session::done));
    // A redelivered message is ignored, a new one is an error.
    assert!(sessions[0].handle(&good).unwrap().is_empty());
    let mut late = good.to_vec();
    *late.last_mut().unwrap() ^= 1;
    assert_eq!(
        sessions[0].handle(&late).unwrap_err().kind(),
        ErrorKind::State
    );
}

#[test]
fn duplicate_deliveries_are_ignored() {
    let fx = fixture();
    let digest = [5u8; 32];
    let mut sessions = [
        dompet_mpc::signing(b"dup", &fx.key_shares[1], &[1, 2], &digest, None).unwrap(),
        dompet_mpc::signing(b"dup", &fx.key_shares[2], &[1, 2], &digest, None).unwrap(),
    ];
    let mut queue: VecDeque<_> = sessions
        .iter_mut()
        .flat_map(|s| s.start().unwrap())
        .collect();
    while let Some(msg) = queue.pop_front() {
        let from = dompet_mpc::sender(&msg).unwrap();
        for s in sessions.iter_mut().filter(|s| s.party() != from) {
            queue.extend(s.handle(&msg).unwrap());
            // Redelivery of the same message (before or after completion) is a no-op.
            assert!(s.handle(&msg).unwrap().is_empty());
        }
    }
    assert!(sessions.iter().all(Session::done));
}

#[test]
fn tampered_message_fails_the_protocol_cleanly() {
    let fx = fixture();
    let digest = [4u8; 32];
    let new_pair = || {
        [
            dompet_mpc::signing(b"tamper", &fx.key_shares[0], &[0, 2], &digest, None).unwrap(),
            dompet_mpc::signing(b"tamper", &fx.key_shares[2], &[0, 2], &digest, None).unwrap(),
        ]
    };
    // A second run with the same execution id: its messages pass every envelope check and
    // decode fine, but belong to different randomness.
    let [_, mut foreign] = new_pair();
    let foreign_msgs = foreign.start().unwrap();

    let [mut a, mut b] = new_pair();
    let mut queue: VecDeque<_> = a.start().unwrap().into_iter().collect();
    // Party 2's first message is replaced by the foreign run's; the rest are genuine.
    queue.extend(foreign_msgs.into_iter().take(1));
    queue.extend(b.start().unwrap().into_iter().skip(1));
    let mut failure = None;
    while let Some(msg) = queue.pop_front() {
        let target = if dompet_mpc::sender(&msg).unwrap() == 0 {
            &mut b
        } else {
            &mut a
        };
        match target.handle(&msg) {
            Ok(out) => queue.extend(out),
            Err(err) => {
                failure = Some(err);
                break;
            }
        }
    }
    let err = failure.expect("the substitution must be detected");
    eprintln!("tampering detected: {err:?}");
    assert_eq!(err.kind(), ErrorKind::Protocol, "{err:?}");
    assert!(a.failed());
    assert_eq!(a.result().unwrap_err().kind(), ErrorKind::State);
    assert_eq!(
        a.handle(b"anything").unwrap_err().kind(),
        ErrorKind::InvalidMessage
    );
}

#[test]
fn corrupted_payload_is_rejected() {
    let fx = fixture();
    let digest = [6u8; 32];
    let mut a = dompet_mpc::signing(b"corrupt", &fx.key_shares[0], &[0, 1], &digest, None).unwrap();
    let mut b = dompet_mpc::signing(b"corrupt", &fx.key_shares[1], &[0, 1], &digest, None).unwrap();
    a.start().unwrap();
    for msg in b.start().unwrap() {
        // Flip bytes all over the payload: each variant is either rejected as undecodable
        // (session intact) or fails the protocol; never a panic.
        for i in (dompet_mpc::wire::HEADER_LEN..msg.len()).step_by(97) {
            let mut bad = msg.to_vec();
            bad[i] ^= 0xA5;
            if let Err(err) = a.handle(&bad) {
                assert!(
                    matches!(
                        err.kind(),
                        ErrorKind::InvalidMessage | ErrorKind::Protocol | ErrorKind::State
                    ),
                    "{err:?}"
                );
            }
            if a.failed() {
                return;
            }
        }
    }
}

#[test]
fn debug_output_has_no_secrets() {
    let fx = fixture();
    let s = dompet_mpc::signing(b"dbg", &fx.key_shares[0], &[0, 1], &[0u8; 32], None).unwrap();
    let text = format!("{s:?}");
    assert!(text.starts_with("Session {"), "{text}");
    assert!(text.len() < 200, "{text}");
}

#[test]
fn execution_id_and_group_validation() {
    assert_eq!(
        dompet_mpc::keygen(b"", 0, 3, 2, false).unwrap_err().kind(),
        ErrorKind::InvalidInput
    );
    assert!(dompet_mpc::keygen(b"e", 3, 3, 2, false).is_err());
    assert!(dompet_mpc::keygen(b"e", 0, 3, 1, false).is_err());
    assert!(dompet_mpc::keygen(b"e", 0, 1, 1, false).is_err());
    let primes = test_primes();
    assert!(dompet_mpc::aux_info(b"e", 0, 3, b"nope").is_err());
    assert!(dompet_mpc::aux_info(b"e", 4, 3, &primes[0]).is_err());
}

#[test]
fn gmp_wiping_allocator_is_installed() {
    let _ = fixture();
    assert!(dompet_mpc::gmp_alloc::installed());
}

// ----- Presignatures: offline presigning, online partial signatures, combine + verify -----

fn presign(key_shares: &[Zeroizing<Vec<u8>>], signers: &[u16], eid: &[u8]) -> Vec<Vec<u8>> {
    let started = std::time::Instant::now();
    let shares = run(signers
        .iter()
        .map(|&i| dompet_mpc::presign(eid, &key_shares[usize::from(i)], signers).unwrap())
        .collect());
    eprintln!("presigning {signers:?}: {:?}", started.elapsed());
    shares.iter().map(|s| s.to_vec()).collect()
}

fn partials(presignatures: &[Vec<u8>], digest: &[u8; 32]) -> Vec<Vec<u8>> {
    presignatures
        .iter()
        .map(|p| {
            dompet_mpc::issue_partial_signature(p, digest)
                .unwrap()
                .to_vec()
        })
        .collect()
}

#[test]
fn presignature_signature_recovers_the_wallet_address() {
    let fx = fixture();
    let info = dompet_mpc::share_info(&fx.key_shares[0]).unwrap();
    // Signer order given in reverse: it does not matter.
    let presigs = presign(&fx.key_shares, &[2, 0], b"presign-recover");
    assert_eq!(presigs.len(), 2);
    let infos: Vec<_> = presigs
        .iter()
        .map(|p| dompet_mpc::presignature_info(p).unwrap())
        .collect();
    assert_eq!(infos[0].party, 2);
    assert_eq!(infos[1].party, 0);
    for i in &infos {
        assert_eq!(i.signers, vec![0, 2]);
        assert_eq!(i.public_key, info.public_key);
        assert_eq!(i.address, info.address);
        assert_eq!(i.presignature_id, infos[0].presignature_id);
    }
    assert_eq!(
        dompet_mpc::blob::kind_of(&presigs[0]).unwrap(),
        BlobKind::Presignature
    );

    let digest: [u8; 32] = Keccak256::digest(b"presigned transfer").into();
    let started = std::time::Instant::now();
    let parts = partials(&presigs, &digest);
    let sig = dompet_mpc::combine_signatures(&parts, &info.public_key, &digest).unwrap();
    eprintln!(
        "online step (2 partials + combine + verify): {:?}",
        started.elapsed()
    );
    eprintln!(
        "sizes: presignature share {} / {} bytes, partial signature {} / {} bytes",
        presigs[0].len(),
        presigs[1].len(),
        parts[0].len(),
        parts[1].len()
    );
    assert!(
        presigs.iter().all(|p| p.len() <= 280),
        "presignature too big"
    );
    assert!(parts.iter().all(|p| p.len() <= 150), "partial too big");
    assert_eq!(
        dompet_mpc::blob::kind_of(&parts[0]).unwrap(),
        BlobKind::PartialSignature
    );
    check_signature(&sig, &digest, &info.public_key, &info.address);

    // Same result whatever the order of the partials and the public key encoding.
    let compressed = VerifyingKey::from_sec1_bytes(&info.public_key)
        .unwrap()
        .to_encoded_point(true);
    let reversed = [parts[1].clone(), parts[0].clone()];
    let again = dompet_mpc::combine_signatures(&reversed, compressed.as_bytes(), &digest).unwrap();
    assert_eq!(again, sig);
    // Issuing is deterministic: a retry after a lost answer yields the same partial (still the
    // same digest, so nothing leaks).
    assert_eq!(partials(&presigs, &digest), parts);
}

#[test]
fn presignature_signature_of_imported_key() {
    let fx = fixture();
    let cores = dompet_mpc::trusted_dealer_split(&[0x11u8; 32], 3, 2).unwrap();
    let shares: Vec<_> = cores
        .iter()
        .zip(&fx.aux)
        .map(|(core, aux)| dompet_mpc::complete_key_share(core, aux).unwrap())
        .collect();
    let presigs = presign(&shares, &[1, 2], b"presign-import");
    let digest = [0x5au8; 32];
    let sig = dompet_mpc::combine_signatures(
        &partials(&presigs, &digest),
        &dompet_mpc::share_info(&shares[0]).unwrap().public_key,
        &digest,
    )
    .unwrap();
    let info = dompet_mpc::share_info(&shares[2]).unwrap();
    check_signature(
        &sig,
        &digest,
        &info.public_key,
        "0x19E7E376E7C213B7E7e7e46cc70A5dD086DAff2A",
    );
}

#[test]
fn combined_signature_is_verified() {
    let fx = fixture();
    let info = dompet_mpc::share_info(&fx.key_shares[1]).unwrap();
    let presigs = presign(&fx.key_shares, &[0, 1], b"presign-verify");
    let digest = [0x21u8; 32];
    let other_digest = [0x22u8; 32];
    // A test on purpose: one signer signs another digest with the same presignature.
    let good = dompet_mpc::issue_partial_signature(&presigs[0], &digest).unwrap();
    let wrong = dompet_mpc::issue_partial_signature(&presigs[1], &other_digest).unwrap();
    let err = dompet_mpc::combine_signatures(&[&good[..], &wrong[..]], &info.public_key, &digest)
        .unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Protocol, "{err}");
    assert_eq!(err.to_string(), "signature verification failed");

    // Consistent partials, but the combiner is asked about another digest or another wallet.
    let parts = partials(&presigs, &digest);
    let err = dompet_mpc::combine_signatures(&parts, &info.public_key, &other_digest).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Protocol, "{err}");
    let other_wallet =
        dompet_mpc::share_info(&dompet_mpc::trusted_dealer_split(&[9u8; 32], 3, 2).unwrap()[0])
            .unwrap();
    let err =
        dompet_mpc::combine_signatures(&parts, &other_wallet.public_key, &digest).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Protocol, "{err}");
    assert_eq!(err.to_string(), "signature verification failed");
    // The right inputs still combine.
    let sig = dompet_mpc::combine_signatures(&parts, &info.public_key, &digest).unwrap();
    check_signature(&sig, &digest, &info.public_key, &info.address);
}

#[test]
fn combine_refuses_mismatching_partials() {
    let fx = fixture();
    let public_key = dompet_mpc::share_info(&fx.key_shares[0])
        .unwrap()
        .public_key;
    let digest = [0x31u8; 32];
    let run_a = partials(&presign(&fx.key_shares, &[0, 1], b"presign-mix-a"), &digest);
    let run_b = partials(&presign(&fx.key_shares, &[0, 1], b"presign-mix-b"), &digest);
    let run_c = partials(&presign(&fx.key_shares, &[1, 2], b"presign-mix-c"), &digest);
    let combine = |parts: &[&Vec<u8>]| {
        dompet_mpc::combine_signatures(parts, &public_key, &digest).unwrap_err()
    };
    let cases: Vec<(&str, Vec<&Vec<u8>>, &str)> = vec![
        ("none", vec![], "no partial signatures"),
        (
            "one",
            vec![&run_a[0]],
            "need one partial signature from each signer",
        ),
        ("duplicate", vec![&run_a[0], &run_a[0]], "same party"),
        (
            "different runs",
            vec![&run_a[0], &run_b[1]],
            "different presignatures",
        ),
        (
            "different signer sets",
            vec![&run_a[0], &run_c[1]],
            "signer sets",
        ),
        (
            "too many",
            vec![&run_a[0], &run_a[1], &run_a[1]],
            "same party",
        ),
    ];
    for (name, parts, expected) in cases {
        let err = combine(&parts);
        assert_eq!(err.kind(), ErrorKind::InvalidInput, "{name}: {err}");
        assert!(err.to_string().contains(expected), "{name}: {err}");
    }
    // Each run on its own is fine.
    for run in [&run_a, &run_b, &run_c] {
        dompet_mpc::combine_signatures(run, &public_key, &digest).unwrap();
    }
}

#[test]
fn presignature_argument_validation() {
    let fx = fixture();
    let share = &fx.key_shares[0];
    let digest = [1u8; 32];
    for signers in [&[0u16][..], &[0, 1, 2], &[1, 2], &[0, 5]] {
        let err = dompet_mpc::presign(b"x", share, signers).unwrap_err();
        assert_eq!(err.kind(), ErrorKind::InvalidInput, "{signers:?}: {err}");
    }
    assert!(dompet_mpc::presign(b"", share, &[0, 1]).is_err());
    let err = dompet_mpc::presign(b"x", &fx.aux[0], &[0, 1]).unwrap_err();
    assert!(err.to_string().contains("expected key share"), "{err}");

    let presigs = presign(&fx.key_shares, &[0, 1], b"presign-args");
    let part = dompet_mpc::issue_partial_signature(&presigs[0], &digest).unwrap();
    let public_key = dompet_mpc::share_info(share).unwrap().public_key;

    // Wrong blob kinds and lengths.
    let input_errors: Vec<(&str, dompet_mpc::MpcError)> = vec![
        (
            "expected presignature",
            dompet_mpc::issue_partial_signature(share, &digest).unwrap_err(),
        ),
        (
            "expected presignature",
            dompet_mpc::issue_partial_signature(&part, &digest).unwrap_err(),
        ),
        (
            "not a dompet-mpc blob",
            dompet_mpc::issue_partial_signature(b"garbage", &digest).unwrap_err(),
        ),
        (
            "32 bytes",
            dompet_mpc::issue_partial_signature(&presigs[0], &digest[..31]).unwrap_err(),
        ),
        (
            "corrupt",
            dompet_mpc::issue_partial_signature(&presigs[0][..presigs[0].len() - 5], &digest)
                .unwrap_err(),
        ),
        (
            "expected partial signature",
            dompet_mpc::combine_signatures(&[&presigs[0], &presigs[1]], &public_key, &digest)
                .unwrap_err(),
        ),
        (
            "expected partial signature",
            dompet_mpc::combine_signatures(&[share.to_vec()], &public_key, &digest).unwrap_err(),
        ),
        (
            "32 bytes",
            dompet_mpc::combine_signatures(&[&part], &public_key, &digest[..16]).unwrap_err(),
        ),
        (
            "33- or 65-byte",
            dompet_mpc::combine_signatures(&[&part], &public_key[1..], &digest).unwrap_err(),
        ),
        (
            "not a valid secp256k1 point",
            dompet_mpc::combine_signatures(&[&part], &[4u8; 65], &digest).unwrap_err(),
        ),
        (
            "expected presignature",
            dompet_mpc::presignature_info(&part).unwrap_err(),
        ),
        (
            "expected a core share or key share",
            dompet_mpc::share_info(&presigs[0]).unwrap_err(),
        ),
    ];
    for (expected, err) in input_errors {
        assert_eq!(err.kind(), ErrorKind::InvalidInput, "{expected}: {err}");
        assert!(err.to_string().contains(expected), "{expected}: {err}");
    }
}

#[test]
fn presign_and_sign_messages_do_not_mix() {
    let fx = fixture();
    let digest = [8u8; 32];
    let mut presign = dompet_mpc::presign(b"mix", &fx.key_shares[0], &[0, 1]).unwrap();
    assert_eq!(presign.protocol(), dompet_mpc::Protocol::Presigning);
    let mut sign = dompet_mpc::signing(b"mix", &fx.key_shares[1], &[0, 1], &digest, None).unwrap();
    presign.start().unwrap();
    let from_sign = sign.start().unwrap();
    let err = presign.handle(&from_sign[0]).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::InvalidMessage, "{err}");
    assert!(err.to_string().contains("'presigning'"), "{err}");
    assert!(!presign.failed());
}

#[test]
fn hd_keygen_then_sign_with_a_derived_key() {
    let shares = hd_key_shares();
    let info: Vec<_> = shares
        .iter()
        .map(|s| dompet_mpc::share_info(s).unwrap())
        .collect();
    let chain_code = info[0].chain_code.expect("an hd key has a chain code");
    for inf in &info {
        assert_eq!(inf.chain_code, Some(chain_code), "one chain code per key");
        assert_eq!(inf.public_key, info[0].public_key);
    }
    let master = info[0].public_key;
    let path = [0u32, 17];
    let child = dompet_mpc::derive_public_key(&master, &chain_code, &path).unwrap();
    let master_compressed = VerifyingKey::from_sec1_bytes(&master)
        .unwrap()
        .to_encoded_point(true);
    assert_ne!(&child[..], master_compressed.as_bytes());

    for (n, pair) in [[0u16, 1], [1, 2]].iter().enumerate() {
        let digest: [u8; 32] = Keccak256::digest(format!("hd message {n}")).into();
        let eid = format!("test-hd-sign-{n}");
        let sigs = run(pair
            .iter()
            .map(|&i| {
                dompet_mpc::signing(
                    eid.as_bytes(),
                    &shares[usize::from(i)],
                    pair,
                    &digest,
                    Some(&path),
                )
                .unwrap()
            })
            .collect());
        assert!(sigs.windows(2).all(|w| w[0] == w[1]), "signers disagree");
        check_signature(&sigs[0], &digest, &child, &address_of(&child));
        // Not a signature of the master key.
        let signature = Signature::from_slice(&sigs[0][..64]).unwrap();
        let master_key = VerifyingKey::from_sec1_bytes(&master).unwrap();
        assert!(master_key.verify_prehash(&digest, &signature).is_err());
    }

    // An empty path is the master key itself; no path at all signs with it as before.
    assert_eq!(
        &dompet_mpc::derive_public_key(&master, &chain_code, &[]).unwrap()[..],
        VerifyingKey::from_sec1_bytes(&master)
            .unwrap()
            .to_encoded_point(true)
            .as_bytes()
    );
    let digest = [0x5au8; 32];
    let sig = sign(shares, &[0, 2], &digest, b"test-hd-master");
    check_signature(&sig, &digest, &master, &info[0].address);
}

#[test]
fn signers_with_different_paths_give_no_signature() {
    let shares = hd_key_shares();
    let digest = [0x33u8; 32];
    let mut a =
        dompet_mpc::signing(b"hd-mismatch", &shares[0], &[0, 1], &digest, Some(&[1])).unwrap();
    let mut b =
        dompet_mpc::signing(b"hd-mismatch", &shares[1], &[0, 1], &digest, Some(&[2])).unwrap();
    let mut queue: VecDeque<_> = a.start().unwrap().into_iter().collect();
    queue.extend(b.start().unwrap());
    let mut failure = None;
    while let Some(msg) = queue.pop_front() {
        let target = if dompet_mpc::sender(&msg).unwrap() == 0 {
            &mut b
        } else {
            &mut a
        };
        match target.handle(&msg) {
            Ok(out) => queue.extend(out),
            // The first failure is the protocol's; later messages meet a failed session.
            Err(err) => failure = failure.or(Some(err)),
        }
    }
    let err = failure.expect("mismatching paths must fail the run");
    assert_eq!(err.kind(), ErrorKind::Protocol, "{err:?}");
    assert!(!a.done() && !b.done());
}

#[test]
fn derivation_paths_are_checked_before_the_run() {
    let fx = fixture();
    let hd = hd_key_shares();
    let digest = [9u8; 32];
    let hardened = 1u32 << 31;
    let cases: Vec<(&str, &[u8], Vec<u32>)> = vec![
        ("hardened", &hd[0], vec![hardened]),
        ("hardened", &hd[0], vec![0, u32::MAX]),
        ("at most 255", &hd[0], vec![0; 256]),
        ("no chain code", &fx.key_shares[0], vec![0]),
        ("no chain code", &fx.key_shares[0], vec![]),
    ];
    for (expected, share, path) in cases {
        let err = dompet_mpc::signing(b"x", share, &[0, 1], &digest, Some(&path)).unwrap_err();
        assert_eq!(err.kind(), ErrorKind::InvalidInput, "{expected}: {err}");
        assert!(err.to_string().contains(expected), "{expected}: {err}");
    }
    // The largest non-hardened index is fine.
    dompet_mpc::signing(b"x", &hd[0], &[0, 1], &digest, Some(&[hardened - 1])).unwrap();
}

#[test]
fn hd_keys_never_presign() {
    let hd = hd_key_shares();
    for (i, share) in hd.iter().enumerate() {
        let party = u16::try_from(i).unwrap();
        let signers = if party == 0 { [0, 1] } else { [0, party] };
        let err = dompet_mpc::presign(b"hd-presign", share, &signers).unwrap_err();
        assert_eq!(err.kind(), ErrorKind::InvalidInput, "{err}");
        assert!(err.to_string().contains("HD keys never presign"), "{err}");
    }
    // Keys without a chain code still do.
    let fx = fixture();
    dompet_mpc::presign(b"plain-presign", &fx.key_shares[0], &[0, 1]).unwrap();
}

#[test]
fn derive_public_key_matches_bip32_vectors() {
    // BIP32 test vector 2: m -> m/0 (xpub661MyMwAqRbcFW31...duB -> xpub69H7F5d8KSRgmmdJ...TPH);
    // test vector 1: m/0H -> m/0H/1 (xpub68Gmy5EdvgibQVfP...Dnw -> xpub6ASuArnXKPbfEwhq...kwQ).
    let cases = [
        (
            "03cbcaa9c98c877a26977d00825c956a238e8dddfbd322cce4f74b0b5bd6ace4a7",
            "60499f801b896d83179a4374aeb7822aaeaceaa0db1f85ee3e904c4defbd9689",
            0u32,
            "02fc9e5af0ac8d9b3cecfe2a888e2117ba3d089d8585886c9c826b6b22a98d12ea",
        ),
        (
            "035a784662a4a20a65bf6aab9ae98a6c068a81c52e4b032c0fb5400c706cfccc56",
            "47fdacbd0f1097043b78c63c20c34ef4ed9a111d980047ad16282c7ae6236141",
            1,
            "03501e454bf00751f24b1b489aa925215d66af2234e3891c3b21a52bedb3cd711c",
        ),
    ];
    for (parent, chain_code, index, child) in cases {
        let parent = from_hex(parent);
        let chain_code = from_hex(chain_code);
        let derived = dompet_mpc::derive_public_key(&parent, &chain_code, &[index]).unwrap();
        assert_eq!(to_hex(&derived), child);
        // The uncompressed encoding of the parent gives the same child.
        let uncompressed = VerifyingKey::from_sec1_bytes(&parent)
            .unwrap()
            .to_encoded_point(false);
        let derived =
            dompet_mpc::derive_public_key(uncompressed.as_bytes(), &chain_code, &[index]).unwrap();
        assert_eq!(to_hex(&derived), child);
    }

    let parent = from_hex(cases[0].0);
    let chain_code = from_hex(cases[0].1);
    let errors = [
        (
            "chain code must be 32 bytes",
            dompet_mpc::derive_public_key(&parent, &chain_code[..31], &[0]).unwrap_err(),
        ),
        (
            "hardened",
            dompet_mpc::derive_public_key(&parent, &chain_code, &[1 << 31]).unwrap_err(),
        ),
        (
            "33- or 65-byte",
            dompet_mpc::derive_public_key(&parent[1..], &chain_code, &[0]).unwrap_err(),
        ),
        (
            "not a valid secp256k1 point",
            dompet_mpc::derive_public_key(&[5u8; 33], &chain_code, &[0]).unwrap_err(),
        ),
    ];
    for (expected, err) in errors {
        assert_eq!(err.kind(), ErrorKind::InvalidInput, "{expected}: {err}");
        assert!(err.to_string().contains(expected), "{expected}: {err}");
    }
}
