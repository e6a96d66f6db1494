pragma circom 2.0.0;

// A long multiplication chain: N non-linear constraints, so the domain is
// 4096 for N = 3000 (with a long zero-padded tail). Each step puts a
// constant (the ONE wire) into A and the public input k into B, so the key's
// coefficient section carries more than unit coefficients.
template Chain(N) {
    signal input x;      // private start value
    signal input k;      // public
    signal output y;
    signal s[N + 1];
    s[0] <== x;
    for (var i = 0; i < N; i++) {
        s[i + 1] <== (s[i] + i + 1) * (s[i] + 3 * k);
    }
    y <== s[N];
}

component main {public [k]} = Chain(3000);
