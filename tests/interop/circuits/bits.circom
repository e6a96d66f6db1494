pragma circom 2.0.0;

include "circomlib/circuits/bitify.circom";
include "circomlib/circuits/comparators.circom";

// Mostly 0/1 signals: two 64-bit decompositions, a comparator and a
// bitwise XOR recomposed into a number. Witness scalars are overwhelmingly
// 0 or 1, the shape the prover's scalar classification is built for.
template Bits(N) {
    signal input a;
    signal input b;
    signal output lt;
    signal output xor;
    component ba = Num2Bits(N);
    component bb = Num2Bits(N);
    ba.in <== a;
    bb.in <== b;
    component cmp = LessThan(N);
    cmp.in[0] <== a;
    cmp.in[1] <== b;
    lt <== cmp.out;
    signal x[N];
    var acc = 0;
    var e = 1;
    for (var i = 0; i < N; i++) {
        x[i] <== ba.out[i] + bb.out[i] - 2 * ba.out[i] * bb.out[i];
        acc += x[i] * e;
        e = e + e;
    }
    xor <== acc;
}

component main = Bits(64);
