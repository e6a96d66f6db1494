//! Proves through the crate what zkpipe's `ss_fixture` wrote
//! (ZKPIPE_SS_FIXTURE: a synthetic circuit's .params and, per circuit,
//! bellperson's a, b, c, assignments, r, s and zkpipe's native proof): each
//! proof must equal the native one byte for byte. tests/supraseal_rust.test.sh runs it.

use std::collections::HashMap;
use std::fs;
use std::path::PathBuf;
use std::sync::Arc;

use supraseal_c2::{generate_groth16_proof, generate_groth16_proofs, gpu_mem, Assignment, SRS};

type Fr = [u64; 4];
type Proof = [u8; 384];

struct Circuit {
    abc: Vec<Fr>,
    w: Vec<Fr>,
    r: Fr,
    s: Fr,
    want: Proof,
}

struct Fixture {
    dir: PathBuf,
    meta: HashMap<String, usize>,
    maps: Vec<u64>,
    circuits: Vec<Circuit>,
}

fn dir() -> PathBuf {
    PathBuf::from(std::env::var_os("ZKPIPE_SS_FIXTURE").expect("ZKPIPE_SS_FIXTURE names the fixture"))
}

fn read(name: &str) -> Vec<u8> {
    let p = dir().join(name);
    fs::read(&p).unwrap_or_else(|e| panic!("{}: {}", p.display(), e))
}

fn frs(bytes: &[u8]) -> Vec<Fr> {
    assert_eq!(bytes.len() % 32, 0);
    bytes
        .chunks_exact(32)
        .map(|c| {
            let mut f = [0u64; 4];
            for (i, l) in f.iter_mut().enumerate() {
                *l = u64::from_le_bytes(c[8 * i..8 * i + 8].try_into().unwrap());
            }
            f
        })
        .collect()
}

fn load() -> Fixture {
    let text = String::from_utf8(read("meta.txt")).unwrap();
    let meta: HashMap<String, usize> = text
        .lines()
        .filter_map(|l| l.split_once(' '))
        .map(|(k, v)| (k.to_string(), v.trim().parse().unwrap()))
        .collect();
    let maps = read("maps.bin")
        .chunks_exact(8)
        .map(|c| u64::from_le_bytes(c.try_into().unwrap()))
        .collect();
    let circuits = (0..meta["circuits"])
        .map(|i| {
            let rs = frs(&read(&format!("{}.rs", i)));
            Circuit {
                abc: frs(&read(&format!("{}.abc", i))),
                w: frs(&read(&format!("{}.w", i))),
                r: rs[0],
                s: rs[1],
                want: read(&format!("{}.proof", i)).try_into().unwrap(),
            }
        })
        .collect();
    Fixture { dir: dir(), meta, maps, circuits }
}

impl Fixture {
    fn params(&self) -> PathBuf {
        self.dir.join("circuit.params")
    }

    /// The three bitmaps as slices of usize words (a_aux, b_inp, b_aux).
    fn bitmaps(&self) -> (&[u64], &[u64], &[u64]) {
        let (wa, wi) = (self.meta["a_aux_words"], self.meta["b_inp_words"]);
        (&self.maps[..wa], &self.maps[wa..wa + wi], &self.maps[wa + wi..])
    }

    fn assignment(&self, c: &Circuit) -> Assignment<Fr> {
        let (m, ni, na) = (self.meta["abc_size"], self.meta["n_inp"], self.meta["n_aux"]);
        let (a_aux, b_inp, b_aux) = self.bitmaps();
        Assignment {
            a_aux_density: a_aux.as_ptr() as *const usize,
            a_aux_bit_len: na,
            a_aux_popcount: self.meta["a_aux_pop"],
            b_inp_density: b_inp.as_ptr() as *const usize,
            b_inp_bit_len: ni,
            b_inp_popcount: self.meta["b_inp_pop"],
            b_aux_density: b_aux.as_ptr() as *const usize,
            b_aux_bit_len: na,
            b_aux_popcount: self.meta["b_aux_pop"],
            a: c.abc.as_ptr(),
            b: c.abc[m..].as_ptr(),
            c: c.abc[2 * m..].as_ptr(),
            abc_size: m,
            inp_assignment_data: c.w.as_ptr(),
            inp_assignment_size: ni,
            aux_assignment_data: c.w[ni..].as_ptr(),
            aux_assignment_size: na,
        }
    }

    fn prove_all(&self, srs: &SRS) -> Vec<Proof> {
        let provers: Vec<_> = self.circuits.iter().map(|c| self.assignment(c)).collect();
        let r: Vec<Fr> = self.circuits.iter().map(|c| c.r).collect();
        let s: Vec<Fr> = self.circuits.iter().map(|c| c.s).collect();
        let mut proofs = vec![[0u8; 384]; self.circuits.len()];
        generate_groth16_proofs(&provers, &r, &s, &mut proofs, srs);
        proofs
    }

    fn check(&self, proofs: &[Proof]) {
        assert_eq!(proofs.len(), self.circuits.len());
        for (i, (got, c)) in proofs.iter().zip(&self.circuits).enumerate() {
            assert!(got[..] == c.want[..], "circuit {}: the proof differs from the native one", i);
        }
    }
}

#[test]
fn proofs_equal_native() {
    let f = load();
    let srs = SRS::try_new(f.params(), true).expect("the fixture's key");
    f.check(&f.prove_all(&srs));
}

#[test]
fn per_argument_form_equals_native() {
    let f = load();
    let srs = SRS::try_new(f.params(), true).expect("the fixture's key");
    let m = f.meta["abc_size"];
    let ni = f.meta["n_inp"];
    let a: Vec<*const Fr> = f.circuits.iter().map(|c| c.abc.as_ptr()).collect();
    let b: Vec<*const Fr> = f.circuits.iter().map(|c| c.abc[m..].as_ptr()).collect();
    let cc: Vec<*const Fr> = f.circuits.iter().map(|c| c.abc[2 * m..].as_ptr()).collect();
    let inp: Vec<*const Fr> = f.circuits.iter().map(|c| c.w.as_ptr()).collect();
    let aux: Vec<*const Fr> = f.circuits.iter().map(|c| c.w[ni..].as_ptr()).collect();
    let r: Vec<Fr> = f.circuits.iter().map(|c| c.r).collect();
    let s: Vec<Fr> = f.circuits.iter().map(|c| c.s).collect();
    let (a_aux, b_inp, b_aux) = f.bitmaps();
    let mut proofs = vec![[0u8; 384]; f.circuits.len()];
    generate_groth16_proof(
        &a, &b, &cc, m, &inp, &aux, ni, f.meta["n_aux"], a_aux, b_inp, b_aux,
        f.meta["a_aux_pop"], f.meta["b_inp_pop"], f.meta["b_aux_pop"], f.circuits.len(),
        &r, &s, &mut proofs, &srs,
    );
    f.check(&proofs);
}

#[test]
fn threads_share_one_key() {
    let f = Arc::new(load());
    let srs = Arc::new(SRS::try_new(f.params(), true).expect("the fixture's key"));
    let handles: Vec<_> = (0..3)
        .map(|_| {
            let (f, srs) = (Arc::clone(&f), Arc::clone(&srs));
            std::thread::spawn(move || f.check(&f.prove_all(&srs)))
        })
        .collect();
    for h in handles {
        h.join().expect("a proving thread");
    }
}

#[test]
fn clones_and_eviction() {
    let f = load();
    let srs = SRS::try_new(f.params(), true).expect("the fixture's key");
    let copy = srs.clone();
    srs.evict();
    drop(srs);
    f.check(&f.prove_all(&copy)); // the clone holds the key
    let none = SRS::default().clone();
    drop(none); // a null handle clones and drops as nothing
}

#[test]
fn gpu_mem_refused_once_the_engine_is_open() {
    let f = load();
    let _srs = SRS::try_new(f.params(), true).expect("the fixture's key");
    assert!(!gpu_mem(8 << 30), "an arena size taken after the engine opened");
}

#[test]
fn missing_params_is_an_error_naming_it() {
    let path = dir().join("no-such-file.params");
    let e = SRS::try_new(path, false).err().expect("an error");
    assert_ne!(e.code, 0);
    let m = String::from(e);
    assert!(m.contains("no-such-file.params"), "message: {}", m);
}

#[test]
fn a_wrong_popcount_panics_with_the_message() {
    let f = load();
    let srs = SRS::try_new(f.params(), true).expect("the fixture's key");
    let mut p = f.assignment(&f.circuits[0]);
    p.a_aux_popcount += 1;
    let c = &f.circuits[0];
    let mut proofs = vec![[0u8; 384]; 1];
    let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        generate_groth16_proofs(&[p], &[c.r], &[c.s], &mut proofs, &srs)
    }));
    let err = r.err().expect("a panic");
    let m = err
        .downcast_ref::<String>()
        .cloned()
        .or_else(|| err.downcast_ref::<&str>().map(|s| s.to_string()))
        .unwrap_or_default();
    assert!(m.contains("A aux density"), "message: {}", m);
    // The library keeps working after the refusal.
    f.check(&f.prove_all(&srs));
}
