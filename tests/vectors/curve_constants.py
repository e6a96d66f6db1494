#!/usr/bin/env python3
"""Derive and check the BLS12-381 curve constants used by src/math/g1.c,
src/math/g2.c and src/math/subgroup.c, and print them as Montgomery-form
little-endian 64-bit limbs (R = 2^384) ready to paste into C.

Run: python3 tests/vectors/curve_constants.py
Everything it prints is asserted first: generators on the curve and of order
r, the endomorphism constants acting as the claimed scalars, and the
arithmetic facts that make the fast subgroup tests exact."""
import random

q = 0x1a0111ea397fe69a4b1ba7b6434bacd764774b84f38512bf6730d2a0f6b0f6241eabfffeb153ffffb9feffffffffaaab
r = 0x73eda753299d7d483339d80809a1d80553bda402fffe5bfeffffffff00000001
X = -0xd201000000010000  # the BLS parameter x (negative)
H1 = 0x396c8c005555e1568c00aaab0000aaab
R = 1 << 384

assert q == (X - 1) ** 2 * (X ** 4 - X ** 2 + 1) // 3 + X
assert r == X ** 4 - X ** 2 + 1

# ---- Fp2 = Fp[u]/(u^2+1) as pairs (c0, c1)
def f2add(a, b): return ((a[0] + b[0]) % q, (a[1] + b[1]) % q)
def f2sub(a, b): return ((a[0] - b[0]) % q, (a[1] - b[1]) % q)
def f2mul(a, b):
    return ((a[0] * b[0] - a[1] * b[1]) % q, (a[0] * b[1] + a[1] * b[0]) % q)
def f2inv(a):
    n = pow(a[0] * a[0] + a[1] * a[1], q - 2, q)
    return (a[0] * n % q, -a[1] * n % q)
def f2pow(a, e):
    acc = (1, 0)
    while e:
        if e & 1: acc = f2mul(acc, a)
        a = f2mul(a, a); e >>= 1
    return acc
def f2conj(a): return (a[0], (-a[1]) % q)

# ---- generic affine short Weierstrass (a = 0) over a field given by ops
class Curve:
    def __init__(s, b, add, sub, mul, inv, zero, one):
        s.b, s.add, s.sub, s.mul, s.inv, s.zero, s.one = b, add, sub, mul, inv, zero, one
    def on(s, P):
        if P is None: return True
        x, y = P
        return s.mul(y, y) == s.add(s.mul(s.mul(x, x), x), s.b)
    def neg(s, P): return None if P is None else (P[0], s.sub(s.zero, P[1]))
    def addp(s, P, Q):
        if P is None: return Q
        if Q is None: return P
        if P[0] == Q[0]:
            if P[1] != Q[1] or P[1] == s.zero: return None
            three = s.add(s.one, s.add(s.one, s.one))
            lam = s.mul(s.mul(three, s.mul(P[0], P[0])), s.inv(s.add(P[1], P[1])))
        else:
            lam = s.mul(s.sub(Q[1], P[1]), s.inv(s.sub(Q[0], P[0])))
        x3 = s.sub(s.sub(s.mul(lam, lam), P[0]), Q[0])
        return (x3, s.sub(s.mul(lam, s.sub(P[0], x3)), P[1]))
    def mul_k(s, P, k):
        if k < 0: return s.mul_k(s.neg(P), -k)
        acc = None
        while k:
            if k & 1: acc = s.addp(acc, P)
            P = s.addp(P, P); k >>= 1
        return acc

E1 = Curve(4, lambda a, b: (a + b) % q, lambda a, b: (a - b) % q,
           lambda a, b: a * b % q, lambda a: pow(a, q - 2, q), 0, 1)
B2 = (4, 4)
E2 = Curve(B2, f2add, f2sub, f2mul, f2inv, (0, 0), (1, 0))

G1 = (0x17f1d3a73197d7942695638c4fa9ac0fc3688c4f9774b905a14e3a3f171bac586c55e83ff97a1aeffb3af00adb22c6bb,
      0x08b3f481e3aaa0f1a09e30ed741d8ae4fcf5e095d5d00af600db18cb2c04b3edd03cc744a2888ae40caa232946c5e7e1)
G2 = ((0x024aa2b2f08f0a91260805272dc51051c6e47ad4fa403b02b4510b647ae3d1770bac0326a805bbefd48056c8c121bdb8,
       0x13e02b6052719f607dacd3a088274f65596bd0d09920b61ab5da61bbdc7f5049334cf11213945d57e5ac7d055d042b7e),
      (0x0ce5d527727d6e118cc9cdc6da2e351aadfd9baa8cbdd3a76d429a695160d12c923ac9cc3baca289e193548608b82801,
       0x0606c4a02ea734cc32acd2b02bc28b99cb3e287e85a763af267492ab572e99ab3f370d275cec1da1aaa9075ff05f79be))
assert E1.on(G1) and E2.on(G2)
assert E1.mul_k(G1, r) is None and E2.mul_k(G2, r) is None

# #E(Fp) = q + 1 - t with t = X + 1; the cofactor is not divisible by r.
t = X + 1
assert q + 1 - t == H1 * r and H1 % r != 0

# ---- G1 endomorphism phi(x, y) = (beta x, y), beta a cube root of unity.
# Its eigenvalue on G1 is -x^2 for one of the two betas. The kernel of
# phi + [x^2] has norm x^4 - x^2 + 1 = r points over the closure, so
# phi(P) == -[x^2]P holds exactly for P in G1 (proof: the kernel is a
# subgroup of size r containing G1).
g = 2
while pow(g, (q - 1) // 3, q) == 1: g += 1
betas = [pow(g, (q - 1) // 3, q), pow(g, 2 * (q - 1) // 3, q)]
beta = None
for b_ in betas:
    assert pow(b_, 3, q) == 1 and b_ != 1
    if (b_ * G1[0] % q, G1[1]) == E1.mul_k(G1, -X * X):
        beta = b_
assert beta is not None
assert (X * X) ** 2 - X * X + 1 == r  # norm of (x^2 + omega) in Z[omega]

# ---- G2 endomorphism psi = untwist-Frobenius-twist:
# psi(x, y) = (conj(x) * cx, conj(y) * cy), cx = 1/(u+1)^((q-1)/3),
# cy = 1/(u+1)^((q-1)/2). On G2 it acts as [q mod r] = [x].
xi = (1, 1)
cx = f2inv(f2pow(xi, (q - 1) // 3))
cy = f2inv(f2pow(xi, (q - 1) // 2))
def psi(P): return (f2mul(f2conj(P[0]), cx), f2mul(f2conj(P[1]), cy))
assert q % r == X % r
assert psi(G2) == E2.mul_k(G2, X)
# #E'(Fp2) = h2 * r. psi - [x] has kernel of size q - x = r (x-1)^2/3 over
# the closure; a rational point of order l != r in it would need l to
# divide both h2 and (x-1)^2/3. They are coprime and r does not divide h2,
# so psi(P) == [x]P holds exactly for P in G2.
# The sextic twists of E over Fp2 have order q^2 + 1 - T with T one of
# +-t2 and (+-t2 +- 3 f2)/2, where t2 = t^2 - 2q is the trace over Fp2 and
# t2^2 - 4 q^2 = -3 f2^2 (f2 = t f with t^2 - 4q = -3 f^2). A random point
# of E' picks the right one.
import math
t2 = t * t - 2 * q
f = math.isqrt((4 * q - t * t) // 3)
assert 3 * f * f == 4 * q - t * t
f2 = t * f
orders = [q * q + 1 - T for T in (t2, -t2, (t2 + 3 * f2) // 2, (t2 - 3 * f2) // 2,
                                  (-t2 + 3 * f2) // 2, (-t2 - 3 * f2) // 2)]
# Determine the twist order directly: pick a random point and test candidates.
def f2sqrt(a):
    # q = 3 mod 4: the root goes through the norm, as in src/math/fp2.c
    if a == (0, 0): return (0, 0)
    n = (a[0] * a[0] + a[1] * a[1]) % q
    s = pow(n, (q + 1) // 4, q)
    if s * s % q != n: return None
    inv2 = pow(2, q - 2, q)
    for d in ((a[0] + s) * inv2 % q, (a[0] - s) * inv2 % q):
        x0 = pow(d, (q + 1) // 4, q)
        if x0 * x0 % q == d and x0 != 0:
            x = (x0, a[1] * pow(2 * x0, q - 2, q) % q)
            if f2mul(x, x) == a: return x
    if a[1] == 0:
        x1 = pow(-a[0] % q, (q + 1) // 4, q)
        if x1 * x1 % q == (-a[0]) % q: return (0, x1)
    return None

def g2_point_from_x(x):
    while True:
        y = f2sqrt(f2add(f2mul(f2mul(x, x), x), B2))
        if y is not None: return (x, y)
        x = (x[0] + 1, x[1])

rng = random.Random(1)
Pt = g2_point_from_x((rng.randrange(q), rng.randrange(q)))
good = [o for o in set(orders) if o % r == 0 and E2.mul_k(Pt, o) is None]
assert len(good) == 1
H2 = good[0] // r
assert H2 % r != 0
assert math.gcd(H2, (X - 1) ** 2 // 3) == 1
assert q - X == r * (X - 1) ** 2 // 3

def limbs(v, n=6):
    return [(v >> (64 * i)) & (2 ** 64 - 1) for i in range(n)]
def cfp(v):
    m = v * R % q
    return "{{" + ", ".join("0x%016xULL" % l for l in limbs(m)) + "}}"
def cfp2(a):
    return "{" + cfp(a[0]) + ", " + cfp(a[1]) + "}"

print("/* generated by tests/vectors/curve_constants.py: Montgomery form */")
print("G1.x =", cfp(G1[0]))
print("G1.y =", cfp(G1[1]))
print("G2.x =", cfp2(G2[0]))
print("G2.y =", cfp2(G2[1]))
print("beta = 0x%x" % beta, cfp(beta))
print("psi cx = (0x%x, 0x%x)" % cx, cfp2(cx))
print("psi cy = (0x%x, 0x%x)" % cy, cfp2(cy))
print("|x| =", hex(-X))
print("h2 = 0x%x" % H2)
