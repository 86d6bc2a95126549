//===- Collectives.cpp - Ops a whole warp executes together ---------------===//
//
// shfl, ldmatrix, mma.sync and MFMA. The lane/register tables below are
// written from the vendors' documents (the PTX ISA's "Matrix fragments for
// mma.m16n8k*" and AMD's matrix instruction calculator / CDNA3 ISA 7.1),
// not taken from lib/Layout, so that running lowered IR here checks the
// compiler's layouts against an independent statement of the hardware.
//
//===----------------------------------------------------------------------===//
#include "Machine.h"
#include "tilec/Interp/Numerics.h"
#include "llvm/Support/Regex.h"
#include <cmath>
#include <functional>
#include <limits>

using namespace tilec;
using namespace tilec::interp;
using namespace tilec::ir;

void Machine::execShfl(const Operation &Op, const Mask &M) {
  int64_t Warp = Tgt.WarpSize;
  int64_t Width = Op.getIntAttr("width").value_or(32);
  if (Width > Warp)
    fail(Op, "shuffle width " + std::to_string(Width) +
                 " is wider than the target's warp of " + std::to_string(Warp) +
                 " lanes");
  requireWholeWarps(Op, M, Warp);
  llvm::StringRef Mode = *Op.getStringAttr("mode");
  std::vector<uint64_t> Src(NumThreads);
  for (int64_t T = 0; T < NumThreads; ++T)
    if (M[T])
      Src[T] = get(Op.getOperand(0), T);
  std::vector<uint64_t> &Out = def(Op.getResult());
  for (int64_t T = 0; T < NumThreads; ++T) {
    if (!M[T])
      continue;
    int64_t L = T % Width, Base = T - L;
    int64_t X = asInt(get(Op.getOperand(1), T));
    int64_t S = Mode == "xor"    ? L ^ X
                : Mode == "down" ? L + X
                : Mode == "up"   ? L - X
                                 : ((X % Width) + Width) % Width;
    if (S < 0 || S >= Width || Base + S >= NumThreads)
      S = L;
    Out[T] = Src[Base + S];
  }
}

void Machine::execLdmatrix(const Operation &Op, const Mask &M) {
  requireWholeWarps(Op, M, 32);
  int64_t Count = *Op.getIntAttr("count");
  bool Trans = Op.getBoolAttr("trans").value_or(false);
  Buffer &Src = buffer(Op, Op.getOperand(Op.getGroupStart(1)));
  // 4-bit elements are packed two per byte: a row of 16 bytes holds 32.
  int64_t Bits = memoryBits(Src.Elem);
  if (Trans && Bits != 16)
    fail(Op, "ldmatrix.trans of " + std::string(irName(Src.Elem)) +
                 " data is not supported by the interpreter");
  int64_t RowElems = 128 / Bits, PerReg = 32 / Bits;
  for (int64_t Base = 0; Base < NumThreads; Base += 32) {
    if (!M[Base])
      continue;
    // Rows[j][r]: the 16 bytes of row r of matrix j, from lane 8 j + r.
    std::vector<std::vector<uint64_t>> Rows(Count * 8);
    for (int64_t J = 0; J < Count * 8; ++J)
      for (int64_t E = 0; E < RowElems; ++E) {
        ElemRef R = elem(Op, 1, Base + J, E);
        checkRead(Op, R, Base + J);
        Rows[J].push_back(R.Buf->Data[R.Flat]);
      }
    for (int64_t L = 0; L < 32; ++L)
      for (int64_t J = 0; J < Count; ++J)
        for (int64_t E = 0; E < PerReg; ++E) {
          uint64_t V = Trans ? Rows[J * 8 + 2 * (L % 4) + E][L / 4]
                             : Rows[J * 8 + L / 4][PerReg * (L % 4) + E];
          ElemRef D = elem(Op, 0, Base + L, J * PerReg + E);
          D.Buf->Data[D.Flat] = V;
        }
  }
}

void Machine::execStmatrix(const Operation &Op, const Mask &M) {
  requireWholeWarps(Op, M, 32);
  int64_t Count = *Op.getIntAttr("count");
  for (int64_t Base = 0; Base < NumThreads; Base += 32) {
    if (!M[Base])
      continue;
    // Row R of matrix J goes to the 16 bytes lane 8 J + R addresses; its
    // element E is element E % 2 of register J of lane 4 R + E / 2.
    for (int64_t J = 0; J < Count; ++J)
      for (int64_t R = 0; R < 8; ++R)
        for (int64_t E = 0; E < 8; ++E) {
          ElemRef S = elem(Op, 1, Base + 4 * R + E / 2, 2 * J + E % 2);
          ElemRef D = elem(Op, 0, Base + 8 * J + R, E);
          noteWrite(D, Base + 8 * J + R);
          D.Buf->Data[D.Flat] = S.Buf->Data[S.Flat];
        }
  }
}

namespace {

/// Where element I of lane L's fragment sits in the operand's matrix.
using FragmentMap =
    std::function<std::pair<int64_t, int64_t>(int64_t L, int64_t I)>;

struct MatrixInstr {
  int64_t M, N, K;
  int64_t ElemsA, ElemsB, ElemsC;
  FragmentMap A, B, C; // A: (row, k), B: (k, col), C: (row, col)
};

/// mma.sync.m16n8k*: g = lane / 4 (groupID), q = lane % 4.
std::optional<MatrixInstr> mmaInstr(llvm::StringRef Shape) {
  FragmentMap C = [](int64_t L, int64_t I) {
    return std::make_pair(L / 4 + 8 * (I / 2), 2 * (L % 4) + I % 2);
  };
  if (Shape == "m16n8k16")
    return MatrixInstr{
        16,
        8,
        16,
        8,
        4,
        4,
        [](int64_t L, int64_t I) {
          return std::make_pair(L / 4 + 8 * ((I / 2) % 2),
                                2 * (L % 4) + I % 2 + 8 * (I / 4));
        },
        [](int64_t L, int64_t I) {
          return std::make_pair(2 * (L % 4) + I % 2 + 8 * (I / 2), L / 4);
        },
        C};
  if (Shape == "m16n8k32")
    return MatrixInstr{
        16,
        8,
        32,
        16,
        8,
        4,
        [](int64_t L, int64_t I) {
          return std::make_pair(L / 4 + 8 * ((I / 4) % 2),
                                4 * (L % 4) + I % 4 + 16 * (I / 8));
        },
        [](int64_t L, int64_t I) {
          return std::make_pair(4 * (L % 4) + I % 4 + 16 * (I / 4), L / 4);
        },
        C};
  // s4/u4: eight 4-bit elements per 32-bit register.
  if (Shape == "m16n8k64")
    return MatrixInstr{
        16,
        8,
        64,
        32,
        16,
        4,
        [](int64_t L, int64_t I) {
          return std::make_pair(L / 4 + 8 * ((I / 8) % 2),
                                8 * (L % 4) + I % 8 + 32 * (I / 16));
        },
        [](int64_t L, int64_t I) {
          return std::make_pair(8 * (L % 4) + I % 8 + 32 * (I / 8), L / 4);
        },
        C};
  if (Shape == "m16n8k8")
    return MatrixInstr{16,
                       8,
                       8,
                       4,
                       2,
                       4,
                       [](int64_t L, int64_t I) {
                         return std::make_pair(L / 4 + 8 * (I % 2),
                                               L % 4 + 4 * (I / 2));
                       },
                       [](int64_t L, int64_t I) {
                         return std::make_pair(L % 4 + 4 * I, L / 4);
                       },
                       C};
  return std::nullopt;
}

/// v_mfma_*_TxTxK: E = T K / 64 consecutive k per lane, lane groups of T
/// step through k; C in groups of four rows, G = 64 / T lane groups.
std::optional<MatrixInstr> mfmaInstr(llvm::StringRef Name) {
  llvm::SmallVector<llvm::StringRef, 4> Parts;
  if (!llvm::Regex("([0-9]+)x([0-9]+)x([0-9]+)").match(Name, &Parts))
    return std::nullopt;
  int64_t T = std::stoll(Parts[1].str()), K = std::stoll(Parts[3].str());
  int64_t E = T * K / 64, G = 64 / T;
  return MatrixInstr{T,
                     T,
                     K,
                     E,
                     E,
                     T * T / 64,
                     [=](int64_t L, int64_t I) {
                       return std::make_pair(L % T, E * (L / T) + I);
                     },
                     [=](int64_t L, int64_t I) {
                       return std::make_pair(E * (L / T) + I, L % T);
                     },
                     [=](int64_t L, int64_t I) {
                       return std::make_pair(
                           4 * G * (I / 4) + 4 * (L / T) + I % 4, L % T);
                     }};
}

} // namespace

/// D += A * B for each warp of \p Lanes lanes: gathers the operands from
/// the lanes' registers through the instruction's tables, multiplies in
/// double and rounds once into D's type.
static void runMatrix(Machine &Mach, const Operation &Op, const Mask &M,
                      int64_t Lanes, const MatrixInstr &In) {
  Mach.requireWholeWarps(Op, M, Lanes);
  auto Gather = [&](unsigned G, int64_t Base, int64_t Elems,
                    const FragmentMap &Map, int64_t Cols,
                    std::vector<double> &Out) {
    for (int64_t L = 0; L < Lanes; ++L)
      for (int64_t I = 0; I < Elems; ++I) {
        ElemRef R = Mach.elem(Op, G, Base + L, I);
        auto [Row, Col] = Map(L, I);
        Out[Row * Cols + Col] = toDouble(R.Buf->Elem, R.Buf->Data[R.Flat]);
      }
  };
  double NaN = std::numeric_limits<double>::quiet_NaN();
  for (int64_t Base = 0; Base < Mach.NumThreads; Base += Lanes) {
    if (!M[Base])
      continue;
    std::vector<double> A(In.M * In.K, NaN), B(In.K * In.N, NaN),
        C(In.M * In.N, NaN);
    Gather(1, Base, In.ElemsA, In.A, In.K, A);
    Gather(2, Base, In.ElemsB, In.B, In.N, B);
    Gather(0, Base, In.ElemsC, In.C, In.N, C);
    for (int64_t L = 0; L < Lanes; ++L)
      for (int64_t I = 0; I < In.ElemsC; ++I) {
        auto [Row, Col] = In.C(L, I);
        double Acc = C[Row * In.N + Col];
        for (int64_t K = 0; K < In.K; ++K)
          Acc += A[Row * In.K + K] * B[K * In.N + Col];
        ElemRef D = Mach.elem(Op, 0, Base + L, I);
        D.Buf->Data[D.Flat] = fromDouble(D.Buf->Elem, Acc);
      }
  }
}

void Machine::execMma(const Operation &Op, const Mask &M) {
  llvm::StringRef Shape = *Op.getStringAttr("shape");
  std::optional<MatrixInstr> In = mmaInstr(Shape);
  if (!In)
    fail(Op, "mma shape '" + Shape.str() + "' is not supported");
  runMatrix(*this, Op, M, 32, *In);
}

void Machine::execMfma(const Operation &Op, const Mask &M) {
  if (Tgt.WarpSize != 64)
    fail(Op, "mfma needs an AMD target (a wavefront of 64 lanes)");
  llvm::StringRef Name = *Op.getStringAttr("instr");
  std::optional<MatrixInstr> In = mfmaInstr(Name);
  if (!In)
    fail(Op, "mfma instruction '" + Name.str() + "' is not supported");
  runMatrix(*this, Op, M, 64, *In);
}

namespace {

/// A wgmma shared operand: the tile whose first element the op names, read
/// through the descriptor fields (PTX ISA, "Matrix Descriptor Format" and
/// the canonical layouts of "Shared Memory Matrix Layout").
struct WgmmaOperand {
  Buffer *Buf;
  int64_t Start; // byte address of the first element
  int64_t Swizzle, LBO, SBO;
  bool MNMajor;

  /// Element (Mn, K) of the operand: A (m, k), B (n, k).
  uint64_t at(const Machine &Mach, const Operation &Op, int64_t Mn,
              int64_t K) const {
    int64_t E = storageBytes(Buf->Elem);
    int64_t Major = MNMajor ? K : Mn, Minor = (MNMajor ? Mn : K) * E;
    int64_t Addr;
    if (Swizzle == 0) {
      int64_t Rows8 = MNMajor ? LBO : SBO, Chunks = MNMajor ? SBO : LBO;
      Addr = Start + (Major / 8) * Rows8 + (Minor / 16) * Chunks +
             (Major % 8) * 16 + Minor % 16;
    } else {
      Addr = Start + (Minor / Swizzle) * LBO + (Major / 8) * SBO +
             (Major % 8) * Swizzle + Minor % Swizzle;
      Addr ^= ((Addr >> 7) & (Swizzle / 16 - 1)) << 4;
    }
    int64_t Flat = (Addr - Buf->SharedOffset) / E;
    if (Flat < 0 || Flat >= Buf->NumElems)
      Mach.fail(Op, "wgmma descriptor addresses byte " + std::to_string(Addr) +
                        ", outside '" + Buf->Name + "'");
    return Buf->Data[Flat];
  }
};

} // namespace

/// The wgmma's shared operand in group \p G as the warpgroup of thread \p
/// Base addresses it, or nullopt for A in registers.
static std::optional<WgmmaOperand>
wgmmaShared(Machine &Mach, const Operation &Op, unsigned G, int64_t Base,
            llvm::StringRef Layout, llvm::StringRef Major) {
  if (Mach.buffer(Op, Op.getGroup(G)[0]).Scope != Scope::Shared)
    return std::nullopt;
  ElemRef First = Mach.elem(Op, G, Base);
  std::vector<int64_t> L = *Op.getIntArrayAttr(Layout);
  int64_t Start = First.Buf->SharedOffset +
                  First.Flat * int64_t(storageBytes(First.Buf->Elem));
  return WgmmaOperand{First.Buf, Start, L[0],
                      L[1],      L[2],  Op.getBoolAttr(Major).value_or(false)};
}

/// The warpgroup's A tile from its threads' registers: warp w holds rows
/// [16 w, 16 w + 16) in the mma.sync A fragment of the same k.
static std::vector<double> wgmmaRegisterA(Machine &Mach, const Operation &Op,
                                          int64_t Base, int64_t K) {
  std::optional<MatrixInstr> Warp = mmaInstr(K == 16   ? "m16n8k16"
                                             : K == 32 ? "m16n8k32"
                                                       : "m16n8k8");
  std::vector<double> A(64 * K);
  for (int64_t T = 0; T < 128; ++T)
    for (int64_t I = 0; I < Warp->ElemsA; ++I) {
      auto [R, Kk] = Warp->A(T % 32, I);
      ElemRef E = Mach.elem(Op, 1, Base + T, I);
      A[(16 * (T / 32) + R) * K + Kk] =
          toDouble(E.Buf->Elem, E.Buf->Data[E.Flat]);
    }
  return A;
}

void Machine::execWgmma(const Operation &Op, const Mask &M) {
  llvm::SmallVector<llvm::StringRef, 4> Parts;
  llvm::StringRef Shape = *Op.getStringAttr("shape");
  if (!llvm::Regex("m64n([0-9]+)k([0-9]+)").match(Shape, &Parts))
    fail(Op, "wgmma shape '" + Shape.str() + "' is not supported");
  int64_t N = std::stoll(Parts[1].str()), K = std::stoll(Parts[2].str());
  requireWholeWarps(Op, M, 128);
  // zero_init (scale-d = 0): D = A * B, its old value unread.
  bool ZeroInit = Op.getBoolAttr("zero_init").value_or(false);
  for (int64_t Base = 0; Base < NumThreads; Base += 128) {
    if (!M[Base])
      continue;
    std::optional<WgmmaOperand> SA =
        wgmmaShared(*this, Op, 1, Base, "a_layout", "a_mn_major");
    WgmmaOperand SB =
        *wgmmaShared(*this, Op, 2, Base, "b_layout", "b_mn_major");
    std::vector<double> A(64 * K), B(K * N);
    if (!SA)
      A = wgmmaRegisterA(*this, Op, Base, K);
    for (int64_t R = 0; R < 64 && SA; ++R)
      for (int64_t Kk = 0; Kk < K; ++Kk)
        A[R * K + Kk] = toDouble(SA->Buf->Elem, SA->at(*this, Op, R, Kk));
    for (int64_t C = 0; C < N; ++C)
      for (int64_t Kk = 0; Kk < K; ++Kk)
        B[Kk * N + C] = toDouble(SB.Buf->Elem, SB.at(*this, Op, C, Kk));
    // D: the mma.sync C fragment per 8 columns, warp w on rows 16 w...
    for (int64_t T = 0; T < 128; ++T)
      for (int64_t I = 0; I < N / 2; ++I) {
        int64_t Row = 16 * (T / 32) + (T % 32) / 4 + 8 * ((I / 2) % 2);
        int64_t Col = 8 * (I / 4) + 2 * (T % 4) + I % 2;
        ElemRef D = elem(Op, 0, Base + T, I);
        double Acc = ZeroInit ? 0 : toDouble(D.Buf->Elem, D.Buf->Data[D.Flat]);
        for (int64_t Kk = 0; Kk < K; ++Kk)
          Acc += A[Row * K + Kk] * B[Kk * N + Col];
        D.Buf->Data[D.Flat] = fromDouble(D.Buf->Elem, Acc);
      }
  }
}
