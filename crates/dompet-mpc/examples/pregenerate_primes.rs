//! Times prime pregeneration and prints the blobs as hex, one per line.
//!
//! `cargo run --release --example pregenerate_primes -- 3 > testdata/insecure_test_primes.hex`
//! regenerates the test fixture (timings go to stderr). Primes printed here are public: never use
//! them for real keys.

use std::time::Instant;

fn main() {
    let count: usize = std::env::args()
        .nth(1)
        .map(|s| s.parse().expect("count must be a number"))
        .unwrap_or(1);
    let total = Instant::now();
    for i in 0..count {
        let start = Instant::now();
        let blob = dompet_mpc::pregenerate_primes().expect("prime generation failed");
        eprintln!("primes #{i}: {:.1} s", start.elapsed().as_secs_f64());
        let line: String = blob.iter().map(|b| format!("{b:02x}")).collect();
        println!("{line}");
    }
    eprintln!("total: {:.1} s", total.elapsed().as_secs_f64());
}
