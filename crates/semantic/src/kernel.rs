//! The matrix product, the one place in this crate that uses `unsafe`: it hands raw
//! pointers to the `gemm` crate, whose kernels pick AVX2/FMA or AVX-512 at run time.
//! Everything the encoder multiplies goes through [`product`], which checks every
//! element the product will touch lies inside the slices it was given before calling in.
//! Each call runs on the calling thread (`Parallelism::None`): the encoder runs one
//! worker per core, each on its own texts, so no thread ever waits on another mid-layer.
#![allow(unsafe_code)]

use gemm::Parallelism;

/// A matrix read from a slice: element (i, j) is `data[i * row_stride + j * col_stride]`.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Matrix<'a> {
    pub data: &'a [f32],
    pub rows: usize,
    pub cols: usize,
    pub row_stride: usize,
    pub col_stride: usize,
}

/// A matrix written into a slice, row by row: element (i, j) is
/// `data[i * row_stride + j]`, and rows do not overlap (`row_stride >= cols`).
#[derive(Debug)]
pub(crate) struct MatrixMut<'a> {
    pub data: &'a mut [f32],
    pub rows: usize,
    pub cols: usize,
    pub row_stride: usize,
}

impl Matrix<'_> {
    /// Whether every element lies inside `data`: the last one, at the largest offset
    /// since both strides are non-negative, is in bounds.
    fn in_bounds(&self) -> bool {
        self.rows == 0
            || self.cols == 0
            || (self.rows - 1)
                .checked_mul(self.row_stride)
                .zip((self.cols - 1).checked_mul(self.col_stride))
                .and_then(|(r, c)| r.checked_add(c))
                .is_some_and(|last| last < self.data.len())
    }
}

impl MatrixMut<'_> {
    fn in_bounds(&self) -> bool {
        self.rows == 0
            || self.cols == 0
            || (self.row_stride >= self.cols
                && (self.rows - 1)
                    .checked_mul(self.row_stride)
                    .and_then(|r| r.checked_add(self.cols - 1))
                    .is_some_and(|last| last < self.data.len()))
    }
}

fn stride(s: usize) -> isize {
    // Every stride comes from an in-bounds matrix over a slice, and no slice is longer
    // than isize::MAX elements, so this never saturates in practice.
    isize::try_from(s).unwrap_or(isize::MAX)
}

/// `dst = (dst if accumulate, else 0) + scale * lhs * rhs`.
///
/// # Panics
/// When the shapes disagree or a matrix reaches past its slice: the encoder's shapes
/// come from a model checked when it is loaded, so this is a bug, never bad input.
pub(crate) fn product(
    dst: MatrixMut<'_>,
    lhs: Matrix<'_>,
    rhs: Matrix<'_>,
    scale: f32,
    accumulate: bool,
) {
    assert!(
        lhs.rows == dst.rows && rhs.cols == dst.cols && lhs.cols == rhs.rows,
        "matrix product of {}x{} by {}x{} into {}x{}",
        lhs.rows,
        lhs.cols,
        rhs.rows,
        rhs.cols,
        dst.rows,
        dst.cols
    );
    assert!(
        dst.in_bounds() && lhs.in_bounds() && rhs.in_bounds(),
        "matrix past its slice"
    );
    let (m, n, k) = (dst.rows, dst.cols, lhs.cols);
    if m == 0 || n == 0 {
        return;
    }
    if k == 0 {
        if !accumulate {
            for i in 0..m {
                dst.data[i * dst.row_stride..i * dst.row_stride + n].fill(0.0);
            }
        }
        return;
    }
    // SAFETY: the asserts above show that every (i, j) with i < m, j < n (and l < k)
    // addresses an element inside the slice it came from, for all three matrices, at
    // the offsets gemm computes from these strides (all non-negative). `dst` is the only
    // pointer written; it comes from a `&mut` slice, so nothing else reads or writes
    // that memory during the call, and its rows do not overlap (row_stride >= cols) and
    // its column stride is 1, so no two (i, j) write the same element. `lhs` and `rhs`
    // are shared slices that cannot alias the exclusive `dst`. `Parallelism::None`
    // keeps the call on this thread, so the borrows outlive every access.
    unsafe {
        gemm::gemm(
            m,
            n,
            k,
            dst.data.as_mut_ptr(),
            1,
            stride(dst.row_stride),
            accumulate,
            lhs.data.as_ptr(),
            stride(lhs.col_stride),
            stride(lhs.row_stride),
            rhs.data.as_ptr(),
            stride(rhs.col_stride),
            stride(rhs.row_stride),
            1.0,
            scale,
            false,
            false,
            false,
            Parallelism::None,
        );
    }
}

/// GFLOP/s of this kernel's f32 product of `rows` × `inner` by `inner` × `cols`, the
/// best of a few runs: on `threads` independent products at once, one per thread (as the
/// encoder runs them), or on one product split across `threads` by gemm's own thread
/// pool, whichever is faster. The `embed` bench prints it as the machine's ceiling.
pub fn product_ceiling(rows: usize, inner: usize, cols: usize, threads: usize) -> f64 {
    let threads = threads.max(1);
    let flops = 2.0 * (rows * inner * cols) as f64;
    let lhs = vec![0.5f32; rows * inner];
    let rhs = vec![0.25f32; inner * cols];
    let reps = 10;
    let independent = || {
        let start = std::time::Instant::now();
        std::thread::scope(|scope| {
            for _ in 0..threads {
                scope.spawn(|| {
                    let mut dst = vec![0.0f32; rows * cols];
                    for _ in 0..reps {
                        product(
                            MatrixMut {
                                data: &mut dst,
                                rows,
                                cols,
                                row_stride: cols,
                            },
                            Matrix {
                                data: &lhs,
                                rows,
                                cols: inner,
                                row_stride: inner,
                                col_stride: 1,
                            },
                            Matrix {
                                data: &rhs,
                                rows: inner,
                                cols,
                                row_stride: cols,
                                col_stride: 1,
                            },
                            1.0,
                            false,
                        );
                    }
                });
            }
        });
        threads as f64 * reps as f64 * flops / start.elapsed().as_secs_f64() / 1e9
    };
    let split = || {
        let mut dst = vec![0.0f32; rows * cols];
        let start = std::time::Instant::now();
        for _ in 0..reps {
            // SAFETY: all three buffers are exactly rows × inner, inner × cols and
            // rows × cols, row-major with the strides given; `dst` is exclusively
            // borrowed, and gemm's pool finishes before the call returns.
            unsafe {
                gemm::gemm(
                    rows,
                    cols,
                    inner,
                    dst.as_mut_ptr(),
                    1,
                    stride(cols),
                    false,
                    lhs.as_ptr(),
                    1,
                    stride(inner),
                    rhs.as_ptr(),
                    1,
                    stride(cols),
                    0.0,
                    1.0,
                    false,
                    false,
                    false,
                    Parallelism::Rayon(threads),
                );
            }
        }
        reps as f64 * flops / start.elapsed().as_secs_f64() / 1e9
    };
    (0..3)
        .map(|_| independent().max(split()))
        .fold(0.0, f64::max)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The plain triple loop, in f64, for checking.
    fn reference(lhs: &Matrix<'_>, rhs: &Matrix<'_>) -> Vec<f64> {
        let mut out = vec![0.0; lhs.rows * rhs.cols];
        for i in 0..lhs.rows {
            for j in 0..rhs.cols {
                for l in 0..lhs.cols {
                    out[i * rhs.cols + j] += f64::from(
                        lhs.data[i * lhs.row_stride + l * lhs.col_stride]
                            * rhs.data[l * rhs.row_stride + j * rhs.col_stride],
                    );
                }
            }
        }
        out
    }

    fn values(n: usize, seed: u32) -> Vec<f32> {
        (0..n)
            .map(|i| {
                ((i as u32).wrapping_mul(2_654_435_761).wrapping_add(seed) % 1000) as f32 / 500.0
                    - 1.0
            })
            .collect()
    }

    #[test]
    fn products_of_strided_views_match_the_plain_loop() {
        // Shapes as the encoder uses them: a transposed view (col_stride > 1), a view
        // inside wider rows, odd sizes that do not fill a SIMD register.
        for &(m, n, k) in &[
            (1, 1, 1),
            (7, 5, 3),
            (45, 45, 32),
            (33, 1152, 384),
            (130, 17, 64),
        ] {
            let a = values(m * (k + 3), 1);
            let b = values(n * k, 2);
            let lhs = Matrix {
                data: &a,
                rows: m,
                cols: k,
                row_stride: k + 3,
                col_stride: 1,
            };
            // rhs as the transpose of an n x k row-major matrix.
            let rhs = Matrix {
                data: &b,
                rows: k,
                cols: n,
                row_stride: 1,
                col_stride: k,
            };
            let want = reference(&lhs, &rhs);
            for accumulate in [false, true] {
                let mut d = vec![0.5f32; m * (n + 2)];
                product(
                    MatrixMut {
                        data: &mut d,
                        rows: m,
                        cols: n,
                        row_stride: n + 2,
                    },
                    lhs,
                    rhs,
                    0.25,
                    accumulate,
                );
                for i in 0..m {
                    for j in 0..n {
                        let expected = want[i * n + j] * 0.25 + if accumulate { 0.5 } else { 0.0 };
                        let got = f64::from(d[i * (n + 2) + j]);
                        assert!(
                            (got - expected).abs() < 1e-4,
                            "{m}x{n}x{k} ({i},{j}): {got} vs {expected}"
                        );
                    }
                    assert_eq!(
                        d[i * (n + 2) + n],
                        0.5,
                        "the gap between rows is left alone"
                    );
                }
            }
        }
    }

    #[test]
    #[should_panic(expected = "past its slice")]
    fn a_view_past_its_slice_is_refused_before_any_product() {
        let a = vec![1.0f32; 10];
        let mut d = vec![0.0f32; 4];
        product(
            MatrixMut {
                data: &mut d,
                rows: 2,
                cols: 2,
                row_stride: 2,
            },
            Matrix {
                data: &a,
                rows: 2,
                cols: 3,
                row_stride: 6,
                col_stride: 2,
            },
            Matrix {
                data: &a,
                rows: 3,
                cols: 2,
                row_stride: 2,
                col_stride: 1,
            },
            1.0,
            false,
        );
    }
}
