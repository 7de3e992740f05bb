//! Protocol-agnostic, synchronous party sessions.
//!
//! cggmp21 defines every protocol as an `async fn` over a `round_based` party. With the
//! `state-machine` feature, `round_based::state_machine::wrap_protocol` turns such a future into a
//! [`StateMachine`] that is advanced by polling (`proceed`) and fed one message at a time
//! (`received_msg`). [`Session`] drives that state machine from plain calls:
//!
//! * [`Session::start`] polls until the protocol waits for a message and returns what it sent;
//! * [`Session::handle`] feeds one envelope, polls again and returns what it sent;
//! * when the protocol finishes, [`Session::done`] is true and [`Session::result`] holds the
//!   serialised output.
//!
//! Rounds, message types and indices of cggmp21 stay inside: messages out of round order are
//! buffered by round_based's router, so a transport just delivers every message it gets.

use std::collections::HashSet;
use std::fmt;

use round_based::state_machine::{ProceedResult, StateMachine};
use round_based::{Incoming, MessageDestination, MessageType};
use serde::{de::DeserializeOwned, Serialize};
use sha2::{Digest, Sha256};
use zeroize::Zeroizing;

use crate::blob::SecretWriter;
use crate::error::{catch_panic, MpcError, Result};
use crate::wire::{Envelope, Protocol};

/// Output encoder: turns the protocol output into the bytes [`Session::result`] returns.
pub(crate) type Encoder<O> = Box<dyn FnOnce(O) -> Result<Zeroizing<Vec<u8>>>>;

/// An outgoing message before it is put into an envelope: protocol-local recipient + payload.
type Outgoing = (Option<u16>, Zeroizing<Vec<u8>>);

/// Object-safe view of a wrapped cggmp21 state machine.
trait Driver {
    /// Polls until the protocol needs a message (`Ok(None)`) or finishes (`Ok(Some(output))`),
    /// appending every message it sends to `out`.
    fn run(&mut self, out: &mut Vec<Outgoing>) -> Result<Option<Zeroizing<Vec<u8>>>>;
    /// Decodes `payload` and hands it to the state machine.
    fn deliver(&mut self, sender: u16, msg_type: MessageType, payload: &[u8]) -> Result<()>;
}

struct SmDriver<SM, O> {
    machine: SM,
    encoder: Option<Encoder<O>>,
    next_msg_id: u64,
    context: &'static str,
}

impl<SM, M, O, E> Driver for SmDriver<SM, O>
where
    SM: StateMachine<Output = std::result::Result<O, E>, Msg = M>,
    M: Serialize + DeserializeOwned,
    E: std::error::Error + 'static,
{
    fn run(&mut self, out: &mut Vec<Outgoing>) -> Result<Option<Zeroizing<Vec<u8>>>> {
        loop {
            match self.machine.proceed() {
                ProceedResult::SendMsg(outgoing) => {
                    // Peer-to-peer payloads can contain secret shares (keygen round 2), so they
                    // are serialised into a zeroizing buffer like every other secret.
                    let mut writer = SecretWriter::with_capacity(1024);
                    ciborium::into_writer(&outgoing.msg, &mut writer).map_err(|_| {
                        MpcError::internal(format!("{}: could not serialise message", self.context))
                    })?;
                    let recipient = match outgoing.recipient {
                        MessageDestination::AllParties => None,
                        MessageDestination::OneParty(j) => Some(j),
                    };
                    out.push((recipient, writer.into_inner()));
                }
                ProceedResult::NeedsOneMoreMessage => return Ok(None),
                ProceedResult::Yielded => continue,
                ProceedResult::Output(Ok(output)) => {
                    let encoder = self.encoder.take().ok_or_else(|| {
                        MpcError::internal(format!("{}: output produced twice", self.context))
                    })?;
                    return encoder(output).map(Some);
                }
                ProceedResult::Output(Err(err)) => {
                    return Err(MpcError::protocol(self.context, &err));
                }
                ProceedResult::Error(err) => {
                    return Err(MpcError::internal(format!(
                        "{}: state machine error: {err}",
                        self.context
                    )));
                }
            }
        }
    }

    fn deliver(&mut self, sender: u16, msg_type: MessageType, payload: &[u8]) -> Result<()> {
        // Decoding errors are reported without ciborium's text, which may quote content.
        let msg: M = ciborium::from_reader(payload).map_err(|_| {
            MpcError::message(format!(
                "{}: message payload is not a valid protocol message",
                self.context
            ))
        })?;
        let incoming = Incoming {
            id: self.next_msg_id,
            sender,
            msg_type,
            msg,
        };
        self.machine
            .received_msg(incoming)
            .map_err(|_| MpcError::state(format!("{}: not expecting a message", self.context)))?;
        self.next_msg_id += 1;
        Ok(())
    }
}

/// Holds the type-erased state machine and lets [`Session`] be `Send`.
struct MachineBox(Box<dyn Driver>);

// SAFETY: the only non-`Send` parts of a wrapped state machine are the `Rc<RefCell<..>>` handles
// round_based's `wrap_protocol` shares between the state machine and the protocol future (its
// incoming/outgoing channels and runtime). All of them live inside this one boxed object: the
// future is owned by the state machine, and nothing else keeps a clone, so moving the whole box
// to another thread moves every handle together and no two threads can touch them. `Session`
// only reaches the box through `&mut self`, so there is no concurrent access either. Every other
// value inside (key shares, rug integers, scalars, the RNG, encoders capturing owned data) is
// `Send`. Boxes are only created by `Session::new` from the protocols in `protocols.rs`, which
// all use owned inputs and an owned `BufferedOsRng`.
unsafe impl Send for MachineBox {}

enum State {
    New,
    Running,
    Done(Zeroizing<Vec<u8>>),
    Failed(MpcError),
}

/// One party's run of one protocol. See the module docs.
pub struct Session {
    protocol: Protocol,
    /// Our index at key generation (what envelopes carry).
    party: u16,
    /// `parties[local] = keygen index` for every participant, `local` = cggmp21's index.
    parties: Vec<u16>,
    execution_tag: [u8; 8],
    state: State,
    machine: MachineBox,
    /// SHA-256 of every message already handed to the state machine. round_based aborts the
    /// protocol when a party's message for a round arrives twice, so exact duplicates (an
    /// at-least-once transport redelivering) are dropped here instead.
    delivered: HashSet<[u8; 32]>,
}

impl fmt::Debug for Session {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // Never prints the machine or the result: both hold secrets.
        let state = match self.state {
            State::New => "new",
            State::Running => "running",
            State::Done(_) => "done",
            State::Failed(_) => "failed",
        };
        f.debug_struct("Session")
            .field("protocol", &self.protocol.name())
            .field("party", &self.party)
            .field("parties", &self.parties)
            .field("state", &state)
            .finish()
    }
}

impl Session {
    /// Wraps a cggmp21 state machine. `parties` maps protocol-local indices to key generation
    /// indices and must contain `party`.
    pub(crate) fn new<SM, M, O, E>(
        protocol: Protocol,
        party: u16,
        parties: Vec<u16>,
        execution_id: &[u8],
        machine: SM,
        encoder: Encoder<O>,
    ) -> Self
    where
        SM: StateMachine<Output = std::result::Result<O, E>, Msg = M> + 'static,
        M: Serialize + DeserializeOwned + 'static,
        O: 'static,
        E: std::error::Error + 'static,
    {
        debug_assert!(parties.contains(&party));
        Self {
            protocol,
            party,
            parties,
            execution_tag: crate::wire::execution_tag(execution_id),
            state: State::New,
            machine: MachineBox(Box::new(SmDriver {
                machine,
                encoder: Some(encoder),
                next_msg_id: 0,
                context: protocol.name(),
            })),
            delivered: HashSet::new(),
        }
    }

    /// Protocol this session runs.
    pub fn protocol(&self) -> Protocol {
        self.protocol
    }

    /// Our party index (at key generation).
    pub fn party(&self) -> u16 {
        self.party
    }

    /// Key generation indices of all participants.
    pub fn parties(&self) -> &[u16] {
        &self.parties
    }

    /// Starts the protocol; returns the first messages to send.
    pub fn start(&mut self) -> Result<Vec<Zeroizing<Vec<u8>>>> {
        match self.state {
            State::New => {}
            State::Running | State::Done(_) => {
                return Err(MpcError::state("session already started"));
            }
            State::Failed(ref err) => return Err(failed_earlier(err)),
        }
        self.state = State::Running;
        self.advance()
    }

    /// Handles one received message; returns the messages to send in reaction (maybe none).
    ///
    /// A message that cannot be decoded, is addressed to another party, or belongs to another
    /// protocol run is rejected with an error and leaves the session untouched. A message the
    /// protocol rejects (e.g. a failing proof) ends the session with an error.
    /// Our own broadcasts, if the transport echoes them back, and exact duplicates of messages
    /// already handled are ignored (empty result).
    pub fn handle(&mut self, message: &[u8]) -> Result<Vec<Zeroizing<Vec<u8>>>> {
        let envelope = Envelope::parse(message)?;
        if envelope.protocol != self.protocol {
            return Err(MpcError::message(format!(
                "message belongs to protocol '{}', this session runs '{}'",
                envelope.protocol.name(),
                self.protocol.name()
            )));
        }
        if envelope.execution_tag != self.execution_tag {
            return Err(MpcError::message(
                "message belongs to another execution (execution_id differs)",
            ));
        }
        if envelope.sender == self.party && envelope.recipient.is_none() {
            return Ok(Vec::new());
        }
        match envelope.recipient {
            Some(recipient) if recipient != self.party => {
                return Err(MpcError::message(format!(
                    "message is addressed to party {recipient}, this is party {}",
                    self.party
                )));
            }
            _ => {}
        }
        let sender = self
            .parties
            .iter()
            .position(|&p| p == envelope.sender)
            .filter(|_| envelope.sender != self.party)
            .ok_or_else(|| {
                MpcError::message(format!(
                    "sender {} is not a peer in this session (parties {:?})",
                    envelope.sender, self.parties
                ))
            })?;
        let sender = u16::try_from(sender).map_err(|_| MpcError::internal("index overflow"))?;
        let msg_type = if envelope.recipient.is_some() {
            MessageType::P2P
        } else {
            MessageType::Broadcast
        };

        let digest: [u8; 32] = Sha256::digest(message).into();
        if self.delivered.contains(&digest) {
            return Ok(Vec::new());
        }
        match self.state {
            State::Running => {}
            State::New => return Err(MpcError::state("call start() before handle()")),
            State::Done(_) => return Err(MpcError::state("session already finished")),
            State::Failed(ref err) => return Err(failed_earlier(err)),
        }

        let machine = &mut self.machine;
        let delivered = catch_panic(self.protocol.name(), || {
            machine.0.deliver(sender, msg_type, envelope.payload)
        });
        match delivered {
            Ok(()) => {
                self.delivered.insert(digest);
            }
            // An undecodable payload did not reach the state machine: the session goes on.
            Err(err) if err.kind() == crate::ErrorKind::InvalidMessage => return Err(err),
            Err(err) => {
                self.state = State::Failed(err.clone());
                return Err(err);
            }
        }
        self.advance()
    }

    /// Whether the protocol finished successfully.
    pub fn done(&self) -> bool {
        matches!(self.state, State::Done(_))
    }

    /// Whether the protocol failed (the session cannot continue).
    pub fn failed(&self) -> bool {
        matches!(self.state, State::Failed(_))
    }

    /// The serialised output (a copy; the session keeps its own until dropped).
    pub fn result(&self) -> Result<Zeroizing<Vec<u8>>> {
        match &self.state {
            State::Done(output) => Ok(output.clone()),
            State::Failed(err) => Err(failed_earlier(err)),
            State::New | State::Running => Err(MpcError::state("protocol has not finished yet")),
        }
    }

    fn advance(&mut self) -> Result<Vec<Zeroizing<Vec<u8>>>> {
        let mut outgoing = Vec::new();
        let machine = &mut self.machine;
        let step = catch_panic(self.protocol.name(), || machine.0.run(&mut outgoing));
        match step {
            Ok(None) => {}
            Ok(Some(output)) => self.state = State::Done(output),
            Err(err) => {
                self.state = State::Failed(err.clone());
                return Err(err);
            }
        }
        outgoing
            .into_iter()
            .map(|(recipient, payload)| self.envelope(recipient, &payload))
            .collect()
    }

    fn envelope(&self, local_recipient: Option<u16>, payload: &[u8]) -> Result<Zeroizing<Vec<u8>>> {
        let recipient = match local_recipient {
            None => None,
            Some(local) => Some(*self.parties.get(usize::from(local)).ok_or_else(|| {
                MpcError::internal("protocol addressed a party outside the session")
            })?),
        };
        Ok(Zeroizing::new(
            Envelope {
                protocol: self.protocol,
                execution_tag: self.execution_tag,
                sender: self.party,
                recipient,
                payload,
            }
            .encode(),
        ))
    }
}

fn failed_earlier(err: &MpcError) -> MpcError {
    MpcError::state(format!("session failed earlier: {err}"))
}
