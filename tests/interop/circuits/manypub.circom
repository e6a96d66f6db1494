pragma circom 2.0.0;

// Many public signals (outputs and inputs mixed): 20 public inputs x,
// 20 private inputs y, outputs z[i] = x[i]*y[i], their sum, a copy of x[0],
// a constant-zero output and a constant-one output (public scalars 0 and 1
// are edge cases for the verifier's input MSM). One public input (unused)
// takes part in no constraint at all: only the key's extra "input * 0 = 0"
// rows mention it.
template ManyPub(N) {
    signal input x[N];
    signal input y[N];
    signal input unused;
    signal output z[N];
    signal output sum;
    signal output copy;
    signal output zero;
    signal output one;
    var acc = 0;
    for (var i = 0; i < N; i++) {
        z[i] <== x[i] * y[i];
        acc += z[i];
    }
    sum <== acc;
    copy <== x[0];
    zero <== 0;
    one <== 1;
}

component main {public [x, unused]} = ManyPub(20);
