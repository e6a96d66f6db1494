//! The public Rust surface of the `supraseal-c2` crate (0.1.2, as bellperson's
//! `cuda-supraseal` feature calls it), backed by zkpipe's engine through its
//! supraseal-c2 drop-in archive (docs/supraseal-c2.md): a `[patch]` or path
//! dependency that points at this crate switches a filecoin-ffi or Curio build
//! to zkpipe with no change to their code.
//!
//! What differs from supraseal-c2: `SRS::try_new` checks every point of the
//! `.params` on its curve and in its subgroup (and keeps the checked key in
//! zkpipe's key cache where one is set, `key_cache`), every proof is verified
//! before a call returns, and a malformed call comes back as an error (a
//! panic here, as supraseal-c2's functions panic on any error) naming what
//! was wrong, never as a crash in the library.

use std::ffi::CString;
use std::os::raw::{c_char, c_int, c_void};
use std::path::{Path, PathBuf};

/// The library's errors, as supraseal-c2 exposes them (`cuda::Error`).
pub mod cuda {
    use std::ffi::CStr;
    use std::fmt;
    use std::os::raw::{c_char, c_void};

    extern "C" {
        fn free(p: *mut c_void);
    }

    /// What a call into the library returned: `code` 0 for success, else
    /// a non-zero code and a message the library allocated (freed here).
    #[repr(C)]
    pub struct Error {
        pub code: i32,
        message: *mut c_char,
    }

    impl Error {
        /// The library's message ("" where it gave none).
        pub fn message(&self) -> String {
            if self.message.is_null() {
                String::new()
            } else {
                // SAFETY: the library's messages are NUL-terminated C strings.
                unsafe { CStr::from_ptr(self.message) }.to_string_lossy().into_owned()
            }
        }
    }

    impl Drop for Error {
        fn drop(&mut self) {
            if !self.message.is_null() {
                // SAFETY: the library allocates its messages with malloc and
                // hands them to the caller to free.
                unsafe { free(self.message as *mut c_void) };
                self.message = std::ptr::null_mut();
            }
        }
    }

    impl From<Error> for String {
        fn from(e: Error) -> String {
            format!("{}", e)
        }
    }

    impl fmt::Display for Error {
        fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            let m = self.message();
            if m.is_empty() {
                write!(f, "supraseal-c2 (zkpipe): error code {}", self.code)
            } else {
                f.write_str(&m)
            }
        }
    }

    impl fmt::Debug for Error {
        fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.debug_struct("cuda::Error")
                .field("code", &self.code)
                .field("message", &self.message())
                .finish()
        }
    }

    impl std::error::Error for Error {}

    // SAFETY: the message is owned by the value alone.
    unsafe impl Send for Error {}
    unsafe impl Sync for Error {}
}

/// Circuit i's side of the boundary: the density bitmaps (64-bit words, bit j
/// of word k is variable 64·k + j), a, b and c evaluated per constraint
/// (bellperson's one `x_i · 0 = 0` row per input included), and the input
/// (ONE first) and aux assignments; scalars in Montgomery form.
#[repr(C)]
pub struct Assignment<Scalar> {
    pub a_aux_density: *const usize,
    pub a_aux_bit_len: usize,
    pub a_aux_popcount: usize,

    pub b_inp_density: *const usize,
    pub b_inp_bit_len: usize,
    pub b_inp_popcount: usize,

    pub b_aux_density: *const usize,
    pub b_aux_bit_len: usize,
    pub b_aux_popcount: usize,

    pub a: *const Scalar,
    pub b: *const Scalar,
    pub c: *const Scalar,
    pub abc_size: usize,

    pub inp_assignment_data: *const Scalar,
    pub inp_assignment_size: usize,

    pub aux_assignment_data: *const Scalar,
    pub aux_assignment_size: usize,
}

// The layout the C boundary takes: 17 eight-byte fields.
const _: () = assert!(std::mem::size_of::<Assignment<[u64; 4]>>() == 136);
const _: () = assert!(std::mem::size_of::<cuda::Error>() == 16);
const _: () = assert!(std::mem::size_of::<SRS>() == 8);

/// A proving key read from a bellperson `.params` file, shared by every
/// handle of the same path while cached.
#[repr(C)]
pub struct SRS {
    ptr: *const c_void,
}

extern "C" {
    fn create_SRS(ret: *mut SRS, srs_path: *const c_char, cache: bool) -> cuda::Error;
    fn evict_SRS(srs: *const SRS);
    fn drop_SRS(srs: *const SRS);
    fn clone_SRS(srs: *const SRS) -> SRS;
    fn generate_groth16_proofs_c(
        provers: *const c_void,
        num_circuits: usize,
        r_s: *const c_void,
        s_s: *const c_void,
        proofs: *mut c_void,
        srs: *const SRS,
    ) -> cuda::Error;
    fn zkpipe_supraseal_key_cache(dir: *const c_char) -> c_int;
    fn zkpipe_supraseal_gpu_mem(bytes: u64) -> c_int;
}

impl Default for SRS {
    fn default() -> Self {
        SRS { ptr: std::ptr::null() }
    }
}

impl SRS {
    /// Loads (or, with `cache`, shares the already loaded) key of `srs_path`.
    pub fn try_new(srs_path: PathBuf, cache: bool) -> Result<Self, cuda::Error> {
        let path = match path_cstring(&srs_path) {
            Some(p) => p,
            None => panic!("SRS path {:?} is not a C string", srs_path),
        };
        let mut srs = SRS::default();
        // SAFETY: srs is a valid out-parameter; path is NUL-terminated.
        let e = unsafe { create_SRS(&mut srs, path.as_ptr(), cache) };
        if e.code != 0 {
            Err(e)
        } else {
            Ok(srs)
        }
    }

    /// Drops the cache's reference: the key is freed once no handle holds it.
    pub fn evict(&self) {
        // SAFETY: self is a handle create_SRS or clone_SRS made.
        unsafe { evict_SRS(self) };
    }
}

impl Drop for SRS {
    fn drop(&mut self) {
        if !self.ptr.is_null() {
            // SAFETY: as evict.
            unsafe { drop_SRS(self) };
            self.ptr = std::ptr::null();
        }
    }
}

impl Clone for SRS {
    fn clone(&self) -> Self {
        // SAFETY: as evict; a null handle clones to a null handle.
        unsafe { clone_SRS(self) }
    }
}

// SAFETY: the library's key handles are reference counted under its lock
// and its calls may come from any thread at once.
unsafe impl Send for SRS {}
unsafe impl Sync for SRS {}

fn path_cstring(p: &Path) -> Option<CString> {
    use std::os::unix::ffi::OsStrExt;
    CString::new(p.as_os_str().as_bytes()).ok()
}

/// zkpipe's addition: the folder where checked `.params` keys are kept as
/// `.zpk` files, so that later loads skip the point checks (None: off).
/// Returns false where the path is too long for the library.
pub fn key_cache(dir: Option<&Path>) -> bool {
    match dir {
        None => unsafe { zkpipe_supraseal_key_cache(std::ptr::null()) == 0 },
        Some(d) => match path_cstring(d) {
            // SAFETY: a NUL-terminated string the library copies.
            Some(c) => unsafe { zkpipe_supraseal_key_cache(c.as_ptr()) == 0 },
            None => false,
        },
    }
}

/// zkpipe's addition: the bytes of each GPU's arena (0: the default, the
/// device's free memory less a small reserve), for a card shared with other
/// GPU work; keys that do not fit stream from pinned host memory. Call it
/// before the first proof or SRS: returns false once the engine is open.
pub fn gpu_mem(bytes: u64) -> bool {
    // SAFETY: takes a plain integer.
    unsafe { zkpipe_supraseal_gpu_mem(bytes) == 0 }
}

/// Proves `provers.len()` circuits with one key; blocks until every proof is
/// made and verified. Panics on any error, with the library's message.
pub fn generate_groth16_proofs<S, PR>(
    provers: &[Assignment<S>],
    r_s: &[S],
    s_s: &[S],
    proofs: &mut [PR],
    srs: &SRS,
) {
    let n = provers.len();
    assert_eq!(r_s.len(), n, "one r per circuit");
    assert_eq!(s_s.len(), n, "one s per circuit");
    assert_eq!(proofs.len(), n, "one proof per circuit");
    let sizes_ok = std::mem::size_of::<S>() == 32 && std::mem::size_of::<PR>() == 384;
    assert!(sizes_ok, "scalars are 32 bytes and proofs 384");
    // SAFETY: every slice holds n elements of the sizes checked above; the
    // Assignments' pointers are the caller's to keep valid for the call.
    let e = unsafe {
        generate_groth16_proofs_c(
            provers.as_ptr() as *const c_void,
            n,
            r_s.as_ptr() as *const c_void,
            s_s.as_ptr() as *const c_void,
            proofs.as_mut_ptr() as *mut c_void,
            srs,
        )
    };
    if e.code != 0 {
        panic!("{}", String::from(e));
    }
}

/// The same call in supraseal-c2's per-argument form: circuit i's a, b, c,
/// inputs and aux assignments at index i of each slice, one set of density
/// bitmaps (words of 64 bits) for all of them.
#[allow(clippy::too_many_arguments)]
pub fn generate_groth16_proof<S, D, PR>(
    ntt_a_scalars: &[*const S],
    ntt_b_scalars: &[*const S],
    ntt_c_scalars: &[*const S],
    ntt_scalars_actual_size: usize,
    input_assignments: &[*const S],
    aux_assignments: &[*const S],
    input_assignments_size: usize,
    aux_assignments_size: usize,
    a_aux_density_bv: &[D],
    b_g1_input_density_bv: &[D],
    b_g1_aux_density_bv: &[D],
    a_aux_total_density: usize,
    b_g1_input_total_density: usize,
    b_g1_aux_total_density: usize,
    num_circuits: usize,
    r_s: &[S],
    s_s: &[S],
    proofs: &mut [PR],
    srs: &SRS,
) {
    for (what, len) in [
        ("a", ntt_a_scalars.len()),
        ("b", ntt_b_scalars.len()),
        ("c", ntt_c_scalars.len()),
        ("input assignments", input_assignments.len()),
        ("aux assignments", aux_assignments.len()),
    ] {
        assert_eq!(len, num_circuits, "{} of {} circuits", what, num_circuits);
    }
    assert!(std::mem::size_of::<D>() == 8, "density bitmaps are of 64-bit words");
    let bits = |v: &[D]| v.len() * 64;
    assert!(bits(a_aux_density_bv) >= aux_assignments_size, "a's aux bitmap is too short");
    assert!(bits(b_g1_aux_density_bv) >= aux_assignments_size, "b's aux bitmap is too short");
    assert!(bits(b_g1_input_density_bv) >= input_assignments_size, "b's input bitmap is too short");
    let provers: Vec<Assignment<S>> = (0..num_circuits)
        .map(|i| Assignment {
            a_aux_density: a_aux_density_bv.as_ptr() as *const usize,
            a_aux_bit_len: aux_assignments_size,
            a_aux_popcount: a_aux_total_density,
            b_inp_density: b_g1_input_density_bv.as_ptr() as *const usize,
            b_inp_bit_len: input_assignments_size,
            b_inp_popcount: b_g1_input_total_density,
            b_aux_density: b_g1_aux_density_bv.as_ptr() as *const usize,
            b_aux_bit_len: aux_assignments_size,
            b_aux_popcount: b_g1_aux_total_density,
            a: ntt_a_scalars[i],
            b: ntt_b_scalars[i],
            c: ntt_c_scalars[i],
            abc_size: ntt_scalars_actual_size,
            inp_assignment_data: input_assignments[i],
            inp_assignment_size: input_assignments_size,
            aux_assignment_data: aux_assignments[i],
            aux_assignment_size: aux_assignments_size,
        })
        .collect();
    generate_groth16_proofs(&provers, r_s, s_s, proofs, srs);
}
