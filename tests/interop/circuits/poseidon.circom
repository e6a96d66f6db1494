pragma circom 2.0.0;

include "circomlib/circuits/poseidon.circom";

// circomlib's Poseidon (its round constants were chosen for BN254, but any
// field element is a valid constant here: the circuit is a realistic dense
// R1CS shape, not a secure hash over BLS12-381). One input is public.
template PoseidonHash() {
    signal input pub;
    signal input priv[3];
    signal output hash;
    component h = Poseidon(4);
    h.inputs[0] <== pub;
    for (var i = 0; i < 3; i++) {
        h.inputs[i + 1] <== priv[i];
    }
    hash <== h.out;
}

component main {public [pub]} = PoseidonHash();
