//! Operating-system randomness, buffered.
//!
//! cggmp21 and its prime generation draw randomness in many tiny pieces; `OsRng` makes one
//! `getrandom` system call per piece (3.7 million calls for one pair of safe primes, about half of
//! its run time). [`BufferedOsRng`] reads the same OS randomness 4 KiB at a time and hands it out
//! unchanged: no new generator, only fewer system calls. Bytes are wiped as soon as they are
//! handed out, and the unused rest of the buffer on drop.

use rand_core::{CryptoRng, Error, OsRng, RngCore};
use zeroize::Zeroize;

const BUFFER_LEN: usize = 4096;

/// `OsRng` with a zeroizing read buffer. Not `Clone`: every byte is handed out once.
pub struct BufferedOsRng {
    // Boxed so that moving the RNG never copies (and leaves behind) buffered bytes.
    buffer: Box<[u8; BUFFER_LEN]>,
    position: usize,
}

impl BufferedOsRng {
    /// An empty buffer; the first request fills it.
    pub fn new() -> Self {
        Self {
            buffer: Box::new([0u8; BUFFER_LEN]),
            position: BUFFER_LEN,
        }
    }
}

impl Default for BufferedOsRng {
    fn default() -> Self {
        Self::new()
    }
}

impl RngCore for BufferedOsRng {
    fn next_u32(&mut self) -> u32 {
        let mut bytes = [0u8; 4];
        self.fill_bytes(&mut bytes);
        u32::from_le_bytes(bytes)
    }

    fn next_u64(&mut self) -> u64 {
        let mut bytes = [0u8; 8];
        self.fill_bytes(&mut bytes);
        u64::from_le_bytes(bytes)
    }

    fn fill_bytes(&mut self, dest: &mut [u8]) {
        if let Err(err) = self.try_fill_bytes(dest) {
            // Same behaviour as OsRng::fill_bytes; panics are caught at our API boundary.
            panic!("operating system randomness unavailable: {err}");
        }
    }

    fn try_fill_bytes(&mut self, dest: &mut [u8]) -> Result<(), Error> {
        if dest.len() >= BUFFER_LEN {
            return OsRng.try_fill_bytes(dest);
        }
        let mut filled = 0;
        while filled < dest.len() {
            if self.position == BUFFER_LEN {
                OsRng.try_fill_bytes(&mut self.buffer[..])?;
                self.position = 0;
            }
            let take = (dest.len() - filled).min(BUFFER_LEN - self.position);
            let source = &mut self.buffer[self.position..self.position + take];
            dest[filled..filled + take].copy_from_slice(source);
            source.zeroize();
            self.position += take;
            filled += take;
        }
        Ok(())
    }
}

impl CryptoRng for BufferedOsRng {}

impl Drop for BufferedOsRng {
    fn drop(&mut self) {
        self.buffer.zeroize();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hands_out_each_byte_once_and_wipes_it() {
        let mut rng = BufferedOsRng::new();
        let mut a = [0u8; 3000];
        let mut b = [0u8; 3000];
        rng.fill_bytes(&mut a);
        rng.fill_bytes(&mut b); // crosses a refill
        assert_ne!(a, b);
        assert!(rng.buffer[..rng.position].iter().all(|&x| x == 0));
        let mut big = vec![0u8; 10_000];
        rng.fill_bytes(&mut big);
        assert!(big.iter().any(|&x| x != 0));
        assert_ne!(rng.next_u64(), rng.next_u64());
    }
}
