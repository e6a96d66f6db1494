pragma circom 2.0.0;

// Three multiplications, one public input and one output: the smallest
// circuit with public signals, aux signals, and variables that are absent
// from A or B (so the .zkey has points at infinity and density matters).
template Mul3() {
    signal input a;     // public
    signal input b;
    signal input c;
    signal output out;
    signal t1;
    signal t2;
    t1 <== a * b;
    t2 <== t1 * c;
    out <== t2 * b + 7;
}

component main {public [a]} = Mul3();
