pragma circom 2.0.0;

// The smallest useful Groth16 circuit: one constraint, one public output.
// a and b stay private, so public.json holds only c.
template Multiplier() {
    signal input a;
    signal input b;
    signal output c;
    c <== a * b;
}

component main = Multiplier();
