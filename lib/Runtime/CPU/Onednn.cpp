//===- Onednn.cpp - oneDNN contractions for amp-cpu-pipeline{gemm=onednn} -===//
//
// The entry points that `amp-cpu-onednn-contractions` calls (C interface:
// memref descriptors by pointer, like the CUDA runtime's cuBLAS GEMM):
//
//   _mlir_ciface_ampOnednnMatmul_<A>_<B>_<C>(A, B, C, beta)
//       C[b, m, n] = sum_k A[b, m, k] * B[b, k, n] + beta * C[b, m, n]
//       on rank-3 strided views (a batch of 1 in A or B is broadcast), fp32
//       accumulation; <A>_<B>_<C> is f32_f32_f32, bf16_bf16_f32 or
//       bf16_bf16_bf16; beta is 0 (C is overwritten) or 1 (a oneDNN sum
//       post-op);
//   _mlir_ciface_ampOnednnConv2dNchwFchw_<I>_<F>_<O>(I, F, O, sh, sw, dh,
//       dw, pt, pl, beta)
//       linalg.conv_2d_nchw_fchw, strides and dilations as linalg's, on I
//       padded with pt zero rows on top and pl zero columns on the left
//       (torch-mlir's tensor.pad, folded into the call; the bottom and right
//       padding follow from the shapes), fp32 accumulation; <I>_<F>_<O> as
//       the matmul's;
//   _mlir_ciface_ampOnednnConv2dBf16_<I>_<F>_<O>(same arguments)
//       the same with bf16 x bf16 products whose f32 I and/or F are rounded
//       to bf16 (nearest even) by the reorders into oneDNN's layouts
//       (autocast's casts folded into the call): f32_f32_f32, f32_bf16_f32,
//       bf16_f32_f32;
//   _mlir_ciface_ampOnednnPoolNchwMax_<T>(I, O, kh, kw, sh, sw, dh, dw, pt,
//       pl)
//       linalg.pooling_nchw_max with a kh x kw window on I padded with -inf
//       (pt rows on top, pl columns on the left), T f32 or bf16.
//
// A oneDNN primitive is created once per element types, shapes, strides and
// beta, and kept (a process-wide cache). Convolutions are created with
// `format_tag::any` (oneDNN's blocked layouts and brgemm kernels; with the
// caller's plain NCHW it runs im2col + GEMM), with reorders from and to the
// caller's buffers on every call; the weights' reordered copies are kept
// between calls while a hash of the caller's bytes is unchanged
// (WeightCache below). oneDNN picks the instructions at
// run time (AVX2, AVX-512, AVX512-BF16, AMX). Where it has no
// implementation (or the library was built without oneDNN), the call
// computes the same result with a reference loop and says so once on
// stderr: the compiler only sends oneDNN the cases it implements on the
// host (amp-cpu-onednn-contractions), so this is a last resort, not a
// crash.
//
//===----------------------------------------------------------------------===//

#include "amp/Runtime/CPU/CpuRuntime.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#ifdef AMP_HAVE_ONEDNN
#include <oneapi/dnnl/dnnl.hpp>
#endif

namespace {

template <int Rank> struct MemRef {
  char *allocated;
  char *aligned;
  int64_t offset;
  int64_t sizes[Rank];
  int64_t strides[Rank];
};

enum class Elem { F32, BF16 };

int64_t bytes(Elem e) { return e == Elem::F32 ? 4 : 2; }
const char *name(Elem e) { return e == Elem::F32 ? "f32" : "bf16"; }

float load(const char *base, Elem e, int64_t index) {
  if (e == Elem::F32) {
    float v;
    std::memcpy(&v, base + index * 4, 4);
    return v;
  }
  uint16_t h;
  std::memcpy(&h, base + index * 2, 2);
  uint32_t bits = uint32_t(h) << 16;
  float v;
  std::memcpy(&v, &bits, 4);
  return v;
}

void store(char *base, Elem e, int64_t index, float v) {
  if (e == Elem::F32) {
    std::memcpy(base + index * 4, &v, 4);
    return;
  }
  uint32_t bits;
  std::memcpy(&bits, &v, 4);
  uint16_t h;
  if ((bits & 0x7fffffffu) > 0x7f800000u)
    h = uint16_t((bits >> 16) | 0x40); // quiet NaN
  else
    h = uint16_t((bits + 0x7fffu + ((bits >> 16) & 1)) >> 16); // RNE
  std::memcpy(base + index * 2, &h, 2);
}

template <int Rank> char *data(const MemRef<Rank> *m, Elem e) {
  return m->aligned + m->offset * bytes(e);
}

/// Says once per kind of call that it runs on the reference loop.
void warnFallback(const std::string &what) {
  static std::mutex mutex;
  static std::set<std::string> said;
  std::lock_guard<std::mutex> lock(mutex);
  if (said.insert(what).second)
    std::fprintf(stderr,
                 "amp-cpu-runtime: remark: %s: no oneDNN implementation%s; "
                 "computed with a reference loop (slow)\n",
                 what.c_str(),
#ifdef AMP_HAVE_ONEDNN
                 " on this CPU"
#else
                 " (the runtime was built without oneDNN)"
#endif
    );
}

void referenceMatmul(const MemRef<3> *a, const MemRef<3> *b, const MemRef<3> *c,
                     Elem ea, Elem eb, Elem ec, float beta) {
  int64_t batch = c->sizes[0], m = c->sizes[1], n = c->sizes[2],
          k = a->sizes[2];
  const char *pa = data(a, ea), *pb = data(b, eb);
  char *pc = data(c, ec);
  for (int64_t i = 0; i < batch; ++i) {
    int64_t ia = a->sizes[0] == 1 ? 0 : i, ib = b->sizes[0] == 1 ? 0 : i;
    for (int64_t r = 0; r < m; ++r)
      for (int64_t col = 0; col < n; ++col) {
        int64_t ci =
            i * c->strides[0] + r * c->strides[1] + col * c->strides[2];
        float acc = beta != 0.0f ? load(pc, ec, ci) : 0.0f;
        for (int64_t x = 0; x < k; ++x)
          acc +=
              load(pa, ea,
                   ia * a->strides[0] + r * a->strides[1] + x * a->strides[2]) *
              load(pb, eb,
                   ib * b->strides[0] + x * b->strides[1] +
                       col * b->strides[2]);
        store(pc, ec, ci, acc);
      }
  }
}

void referenceConv(const MemRef<4> *in, const MemRef<4> *f,
                   const MemRef<4> *out, const int64_t s[2], const int64_t d[2],
                   const int64_t p[2], float beta, Elem ei, Elem ef, Elem eo,
                   bool bf16Products) {
  // The products of bf16Products take both operands rounded to bf16.
  auto operand = [&](const char *base, Elem e, int64_t index) {
    float v = load(base, e, index);
    if (!bf16Products || e == Elem::BF16)
      return v;
    char h[2];
    store(h, Elem::BF16, 0, v);
    return load(h, Elem::BF16, 0);
  };
  const char *pi = data(in, ei), *pf = data(f, ef);
  char *po = data(out, eo);
  int64_t nb = out->sizes[0], oc = out->sizes[1], oh = out->sizes[2],
          ow = out->sizes[3], ic = in->sizes[1], kh = f->sizes[2],
          kw = f->sizes[3];
  for (int64_t n = 0; n < nb; ++n)
    for (int64_t o = 0; o < oc; ++o)
      for (int64_t y = 0; y < oh; ++y)
        for (int64_t x = 0; x < ow; ++x) {
          int64_t oi = n * out->strides[0] + o * out->strides[1] +
                       y * out->strides[2] + x * out->strides[3];
          float acc = beta != 0.0f ? load(po, eo, oi) : 0.0f;
          for (int64_t c = 0; c < ic; ++c)
            for (int64_t i = 0; i < kh; ++i)
              for (int64_t j = 0; j < kw; ++j) {
                int64_t r = y * s[0] + i * d[0] - p[0],
                        q = x * s[1] + j * d[1] - p[1];
                if (r < 0 || r >= in->sizes[2] || q < 0 || q >= in->sizes[3])
                  continue; // padding
                acc += operand(pi, ei,
                               n * in->strides[0] + c * in->strides[1] +
                                   r * in->strides[2] + q * in->strides[3]) *
                       operand(pf, ef,
                               o * f->strides[0] + c * f->strides[1] +
                                   i * f->strides[2] + j * f->strides[3]);
              }
          store(po, eo, oi, acc);
        }
}

/// The element-wise post-ops of a fused call: a program of up to 8 ops,
/// one byte each from the lowest (0 ends it): bits 0-2 the kind, bits 3-5
/// the operand slot of a binary op, bit 6 set where that operand is bf16.
/// Each op takes the value v so far (the f32 accumulator first): binary ops
/// v = v op S[slot] (S broadcast where its dimension is 1), relu v > 0 ? v :
/// 0 (NaN stays NaN), gelu_erf 0.5 v (1 + erf(v / sqrt 2)).
enum class PostKind { End = 0, Add, Sub, Mul, Div, Relu, GeluErf };
struct PostOp {
  PostKind kind;
  int slot;
  Elem type;
};
constexpr int kPostSlots = 6;

std::vector<PostOp> decodePostOps(int64_t program) {
  std::vector<PostOp> ops;
  for (int i = 0; i < 8; ++i) {
    unsigned byte = unsigned(uint64_t(program) >> (8 * i)) & 0xff;
    unsigned kind = byte & 7;
    if (kind == 0)
      break;
    if (kind > unsigned(PostKind::GeluErf) || ((byte >> 3) & 7) >= kPostSlots) {
      std::fprintf(stderr,
                   "amp-cpu-runtime: bad oneDNN post-op program %#llx\n",
                   (unsigned long long)program);
      std::abort();
    }
    ops.push_back({PostKind(kind), int((byte >> 3) & 7),
                   (byte & 0x40) ? Elem::BF16 : Elem::F32});
  }
  return ops;
}

bool isBinary(PostKind k) { return k >= PostKind::Add && k <= PostKind::Div; }

float applyPostOp(PostKind k, float v, float s) {
  switch (k) {
  case PostKind::Add:
    return v + s;
  case PostKind::Sub:
    return v - s;
  case PostKind::Mul:
    return v * s;
  case PostKind::Div:
    return v / s;
  case PostKind::Relu:
    return !(v <= 0.0f) ? v : 0.0f; // arith.cmpf ugt + select
  case PostKind::GeluErf:
    return 0.5f * v * (1.0f + std::erf(v * 0.70710678118654752f));
  case PostKind::End:
    break;
  }
  return v;
}

/// out = post-ops(acc) element by element, where oneDNN did not take the
/// post-ops: `acc` a dense f32 buffer of out's sizes.
template <int Rank>
void referencePostOps(const float *acc, const MemRef<Rank> *out, Elem eo,
                      const std::vector<PostOp> &ops,
                      MemRef<Rank> *const *slots) {
  int64_t total = 1;
  for (int d = 0; d < Rank; ++d)
    total *= out->sizes[d];
  char *po = data(out, eo);
  for (int64_t linear = 0; linear < total; ++linear) {
    int64_t idx[Rank], rest = linear;
    for (int d = Rank - 1; d >= 0; --d) {
      idx[d] = rest % out->sizes[d];
      rest /= out->sizes[d];
    }
    float v = acc[linear];
    for (const PostOp &op : ops) {
      float s = 0.0f;
      if (isBinary(op.kind)) {
        const MemRef<Rank> *m = slots[op.slot];
        int64_t at = 0;
        for (int d = 0; d < Rank; ++d)
          at += m->sizes[d] == 1 ? 0 : idx[d] * m->strides[d];
        s = load(data(m, op.type), op.type, at);
      }
      v = applyPostOp(op.kind, v, s);
    }
    int64_t at = 0;
    for (int d = 0; d < Rank; ++d)
      at += idx[d] * out->strides[d];
    store(po, eo, at, v);
  }
}

/// A dense f32 buffer of `like`'s sizes (this thread's, reused), as a
/// memref descriptor.
template <int Rank>
MemRef<Rank> denseF32(const MemRef<Rank> *like, std::vector<float> &storage) {
  MemRef<Rank> m;
  int64_t stride = 1;
  for (int d = Rank - 1; d >= 0; --d) {
    m.sizes[d] = like->sizes[d];
    m.strides[d] = stride;
    stride *= like->sizes[d];
  }
  storage.resize(size_t(stride));
  m.allocated = m.aligned = reinterpret_cast<char *>(storage.data());
  m.offset = 0;
  return m;
}

/// Says once per kind of call that its post-ops run as a loop after it.
void warnPostOpsFallback(const std::string &what) {
  static std::mutex mutex;
  static std::set<std::string> said;
  std::lock_guard<std::mutex> lock(mutex);
  if (said.insert(what).second)
    std::fprintf(stderr,
                 "amp-cpu-runtime: remark: %s: oneDNN does not take these "
                 "post-ops%s; the call runs without them and a loop applies "
                 "them (same numbers, slower)\n",
                 what.c_str(),
#ifdef AMP_HAVE_ONEDNN
                 " on this CPU"
#else
                 " (the runtime was built without oneDNN)"
#endif
    );
}

#ifdef AMP_HAVE_ONEDNN

dnnl::engine &engine() {
  static dnnl::engine e(dnnl::engine::kind::cpu, 0);
  return e;
}

dnnl::memory::data_type dnnlType(Elem e) {
  return e == Elem::F32 ? dnnl::memory::data_type::f32
                        : dnnl::memory::data_type::bf16;
}

template <int Rank> dnnl::memory::desc describe(const MemRef<Rank> *m, Elem e) {
  dnnl::memory::dims dims(m->sizes, m->sizes + Rank);
  dnnl::memory::dims strides(m->strides, m->strides + Rank);
  // A unit dimension's stride does not matter to the data, but oneDNN reads
  // the layout from the strides (a stride of 0 made it a "bca" layout that
  // only its reference matmul takes, 500x slower): give each unit dimension
  // the stride of an outermost one.
  int64_t outer = 1;
  for (int i = 0; i < Rank; ++i)
    if (dims[i] != 1)
      outer = std::max<int64_t>(outer, strides[i] * dims[i]);
  for (int i = 0; i < Rank; ++i)
    if (dims[i] == 1)
      strides[i] = outer;
  return dnnl::memory::desc(dims, dnnlType(e), strides);
}

dnnl::primitive_attr sumAttr(float beta) {
  dnnl::primitive_attr attr;
  if (beta != 0.0f) {
    dnnl::post_ops ops;
    ops.append_sum(beta);
    attr.set_post_ops(ops);
  }
  return attr;
}

/// Whether `m` has `out`'s sizes (no broadcast).
template <int Rank>
bool isFullSize(const MemRef<Rank> *m, const MemRef<Rank> *out) {
  for (int d = 0; d < Rank; ++d)
    if (m->sizes[d] != out->sizes[d])
      return false;
  return true;
}

/// The index of the one op of `ops` that adds or subtracts a full-size f32
/// operand (`out`'s sizes), which a convolution takes as a sum post-op;
/// -1 where there is none or more than one full-size operand.
template <int Rank>
int residualOp(const std::vector<PostOp> &ops, MemRef<Rank> *const *slots,
               const MemRef<Rank> *out) {
  int found = -1;
  for (size_t i = 0; i < ops.size(); ++i)
    if (isBinary(ops[i].kind) && isFullSize(slots[ops[i].slot], out)) {
      if (found >= 0 || ops[i].type != Elem::F32 ||
          (ops[i].kind != PostKind::Add && ops[i].kind != PostKind::Sub))
        return -1;
      found = int(i);
    }
  return found;
}

/// oneDNN's post-ops for `ops` (binary ops with their operand's memory
/// descriptor, broadcast where a dimension is 1), in order; op `sum`, if
/// any, as a sum post-op (its operand is put into the destination first).
template <int Rank>
dnnl::primitive_attr postOpsAttr(const std::vector<PostOp> &ops,
                                 MemRef<Rank> *const *slots, int sum = -1) {
  dnnl::post_ops po;
  for (const PostOp &op : ops) {
    dnnl::algorithm alg;
    switch (op.kind) {
    case PostKind::Add:
      alg = dnnl::algorithm::binary_add;
      break;
    case PostKind::Sub:
      alg = dnnl::algorithm::binary_sub;
      break;
    case PostKind::Mul:
      alg = dnnl::algorithm::binary_mul;
      break;
    case PostKind::Div:
      alg = dnnl::algorithm::binary_div;
      break;
    case PostKind::Relu:
      alg = dnnl::algorithm::eltwise_relu;
      break;
    default:
      alg = dnnl::algorithm::eltwise_gelu_erf;
      break;
    }
    if (&op - ops.data() == sum) {
      po.append_sum(op.kind == PostKind::Sub ? -1.0f : 1.0f);
      continue;
    }
    if (isBinary(op.kind)) {
      po.append_binary(alg, describe(slots[op.slot], op.type));
      continue;
    }
#if DNNL_VERSION_MAJOR >= 3
    po.append_eltwise(alg, 0.0f, 0.0f);
#else
    po.append_eltwise(1.0f, alg, 0.0f, 0.0f);
#endif
  }
  dnnl::primitive_attr attr;
  attr.set_post_ops(po);
  return attr;
}

/// The binary post-ops' operands of a call, as execute() arguments.
template <int Rank>
std::vector<std::pair<int, dnnl::memory>>
postOpArgs(const std::vector<PostOp> &ops, MemRef<Rank> *const *slots,
           int sum = -1) {
  std::vector<std::pair<int, dnnl::memory>> args;
  for (size_t i = 0; i < ops.size(); ++i)
    if (isBinary(ops[i].kind) && int(i) != sum) {
      const MemRef<Rank> *m = slots[ops[i].slot];
      args.emplace_back(DNNL_ARG_ATTR_MULTIPLE_POST_OP(int(i)) | DNNL_ARG_SRC_1,
                        dnnl::memory(describe(m, ops[i].type), engine(),
                                     data(m, ops[i].type)));
    }
  return args;
}

template <int Rank>
void appendPostKey(std::vector<int64_t> &key, int64_t program,
                   const std::vector<PostOp> &ops, MemRef<Rank> *const *slots) {
  key.push_back(program);
  for (const PostOp &op : ops)
    if (isBinary(op.kind)) {
      const MemRef<Rank> *m = slots[op.slot];
      for (int d = 0; d < Rank; ++d) {
        key.push_back(m->sizes[d]);
        key.push_back(m->sizes[d] == 1 ? 0 : m->strides[d]);
      }
    }
}

/// The cache: one primitive per key (element types, sizes, strides, beta,
/// kind); an empty entry records that oneDNN has no implementation.
struct Cache {
  std::mutex mutex;
  std::map<std::vector<int64_t>, std::pair<bool, dnnl::primitive>> entries;
};

Cache &cache() {
  static Cache c;
  return c;
}

template <typename Create>
bool lookup(const std::vector<int64_t> &key, Create create,
            dnnl::primitive &out) {
  Cache &c = cache();
  std::lock_guard<std::mutex> lock(c.mutex);
  auto it = c.entries.find(key);
  if (it == c.entries.end()) {
    std::pair<bool, dnnl::primitive> entry{false, {}};
    try {
      entry = {true, create()};
    } catch (const dnnl::error &) {
    }
    it = c.entries.emplace(key, entry).first;
  }
  out = it->second.second;
  return it->second.first;
}

template <int Rank>
void appendKey(std::vector<int64_t> &key, const MemRef<Rank> *m) {
  key.insert(key.end(), m->sizes, m->sizes + Rank);
  key.insert(key.end(), m->strides, m->strides + Rank);
}

dnnl::stream &stream() {
  static dnnl::stream s(engine());
  return s;
}

/// Memory of one thread for the blocked copies of a convolution's operands,
/// grown to the largest call's and kept: no allocation (and no page faults
/// on a fresh mapping) per call, the same few buffers reused by every
/// convolution of a model, and calls from several threads never share one.
class ThreadBuffer {
public:
  ~ThreadBuffer() { std::free(ptr); }
  void *get(size_t size) {
    if (size > capacity) {
      std::free(ptr);
      capacity = (size + 4095) / 4096 * 4096;
      ptr = std::aligned_alloc(4096, capacity);
      if (!ptr) {
        std::fprintf(stderr,
                     "amp-cpu-runtime: out of memory (%zu bytes for "
                     "a oneDNN convolution)\n",
                     capacity);
        std::abort();
      }
    }
    return ptr;
  }

private:
  void *ptr = nullptr;
  size_t capacity = 0;
};

/// A convolution primitive created with `format_tag::any` for its source,
/// weights and destination, so that oneDNN picks the layouts of its direct
/// and brgemm kernels (nChw16c activations, blocked weights with the bf16
/// pairs adjacent); with the plain NCHW layouts of the caller it runs
/// im2col + GEMM (`gemm:jit`). The reorders between the caller's strided
/// buffers and those layouts run on every call, the weights' included: a
/// weight is a function argument that may change between calls, so a copy
/// kept from an earlier call could be stale (PyTorch's eager convolutions
/// reorder their weights on every call too).
struct ConvEntry {
  dnnl::primitive conv;
  dnnl::memory::desc userSrc, userWei, userDst, src, wei, dst;
  /// Reorders, valid where the layout differs from the caller's.
  dnnl::reorder srcIn, weiIn, dstIn, dstOut;
  bool reorderSrc = false, reorderWei = false, reorderDst = false;
  /// A full-size operand added by the post-ops (a residual), as oneDNN's
  /// sum post-op: reordered into the destination (f32) before the call.
  /// oneDNN 2.6's brgconv takes no full-size binary post-op (im2col + GEMM
  /// instead, several times slower), but a sum anywhere in the chain.
  int residualSlot = -1;
  dnnl::memory::desc residualUser;
  dnnl::reorder residualIn;
};

dnnl::reorder makeReorder(const dnnl::memory::desc &from,
                          const dnnl::memory::desc &to) {
  return dnnl::reorder(
      dnnl::reorder::primitive_desc(engine(), from, engine(), to));
}

dnnl::convolution_forward::primitive_desc
convDesc(const dnnl::memory::desc &id, const dnnl::memory::desc &fd,
         const dnnl::memory::desc &od, const dnnl::memory::dims &strides,
         const dnnl::memory::dims &dil, const dnnl::memory::dims &padL,
         const dnnl::memory::dims &padR, const dnnl::primitive_attr &attr) {
#if DNNL_VERSION_MAJOR >= 3
  return dnnl::convolution_forward::primitive_desc(
      engine(), dnnl::prop_kind::forward_inference,
      dnnl::algorithm::convolution_direct, id, fd, od, strides, dil, padL, padR,
      attr);
#else
  return dnnl::convolution_forward::primitive_desc(
      dnnl::convolution_forward::desc(dnnl::prop_kind::forward_inference,
                                      dnnl::algorithm::convolution_direct, id,
                                      fd, od, strides, dil, padL, padR),
      attr, engine());
#endif
}

/// A 64-bit hash of `size` bytes at `p` (xxHash64's rounds over four
/// lanes): about memory speed, a few times faster than oneDNN's reorder of
/// the same weights into a blocked layout.
uint64_t hashBytes(const char *p, size_t size) {
  constexpr uint64_t p1 = 0x9E3779B185EBCA87ull, p2 = 0xC2B2AE3D27D4EB4Full;
  auto rotl = [](uint64_t x, int r) { return (x << r) | (x >> (64 - r)); };
  auto round = [&](uint64_t acc, uint64_t v) {
    return rotl(acc + v * p2, 31) * p1;
  };
  uint64_t h[4] = {p1 + p2, p2, 0, 0 - p1};
  size_t i = 0;
  for (; i + 32 <= size; i += 32)
    for (int j = 0; j < 4; ++j) {
      uint64_t v;
      std::memcpy(&v, p + i + 8 * j, 8);
      h[j] = round(h[j], v);
    }
  uint64_t acc =
      rotl(h[0], 1) + rotl(h[1], 7) + rotl(h[2], 12) + rotl(h[3], 18) + size;
  for (; i < size; ++i)
    acc = rotl(acc ^ (uint64_t(uint8_t(p[i])) * p1), 11) * p2;
  acc ^= acc >> 33;
  acc *= p2;
  acc ^= acc >> 29;
  return acc;
}

/// Weights reordered into a convolution's layout, kept between calls: one
/// copy per convolution primitive and caller's buffer, used again only
/// while the caller's bytes have the same 64-bit hash. A weight is a
/// function argument that may change between calls (an optimizer step, a
/// numpy array written in place, a freed buffer whose address comes back
/// with other data): the hash of its bytes, computed on every call, is the
/// key, not the address; a change makes the call reorder again (a hash
/// collision of two different weights is a 2^-64 event). The copies count
/// against AMP_ONEDNN_WEIGHT_CACHE_MB (default 512; 0 turns the cache off:
/// every call reorders); when a new one would exceed it, the cache is
/// emptied first. They are not JIT buffers: cpu_memory_stats does not count
/// them.
class WeightCache {
public:
  static WeightCache &get() {
    static WeightCache c;
    return c;
  }
  size_t budget() const { return limit; }

  /// The reordered copy of `key` if its hash is `hash` (`hit`); else, when
  /// `key` has a stale copy that no call is using, that copy's buffer taken
  /// out of the cache to be reordered into again (a weight that changes on
  /// every call, like the gradient a backward convolution takes as its
  /// filter, then reuses one buffer instead of faulting in a fresh one);
  /// else null.
  std::shared_ptr<void> find(const std::pair<const void *, const void *> &key,
                             uint64_t hash, bool &hit) {
    std::lock_guard<std::mutex> lock(mutex);
    hit = false;
    auto it = entries.find(key);
    if (it == entries.end())
      return nullptr;
    if (it->second.hash == hash) {
      hit = true;
      return it->second.data;
    }
    std::shared_ptr<void> stale;
    if (it->second.data.use_count() == 1) {
      stale = std::move(it->second.data);
      bytes -= it->second.size;
      entries.erase(it);
    }
    return stale;
  }

  void put(const std::pair<const void *, const void *> &key, uint64_t hash,
           std::shared_ptr<void> data, size_t size) {
    std::lock_guard<std::mutex> lock(mutex);
    auto it = entries.find(key);
    if (it != entries.end()) {
      bytes -= it->second.size;
      entries.erase(it);
    }
    if (size > limit)
      return;
    if (bytes + size > limit) {
      entries.clear();
      bytes = 0;
    }
    entries[key] = {hash, std::move(data), size};
    bytes += size;
  }

private:
  WeightCache() { limit = size_t(budgetMiB()) << 20; }

  /// AMP_ONEDNN_WEIGHT_CACHE_MB as a number of MiB: unset or empty is the
  /// default (512); anything but a whole number from 0 to 2^40 (a word, a
  /// negative number, trailing characters) is said once on stderr, naming
  /// the variable and the value, and gives the default too (strtoull read
  /// "abc" as 0 and "-1" as 2^64 - 1 without a word).
  static uint64_t budgetMiB() {
    constexpr uint64_t fallback = 512;
    const char *v = std::getenv("AMP_ONEDNN_WEIGHT_CACHE_MB");
    if (!v || !*v)
      return fallback;
    const char *p = v;
    while (*p == ' ' || *p == '\t')
      ++p;
    uint64_t mib = 0;
    bool ok = *p >= '0' && *p <= '9';
    for (; ok && *p >= '0' && *p <= '9'; ++p) {
      mib = mib * 10 + uint64_t(*p - '0');
      ok = mib <= (uint64_t(1) << 40);
    }
    while (ok && (*p == ' ' || *p == '\t'))
      ++p;
    if (ok && *p == '\0')
      return mib;
    std::fprintf(stderr,
                 "amp-cpu-runtime: warning: AMP_ONEDNN_WEIGHT_CACHE_MB must be "
                 "a whole number of MiB (0 turns the cache off), got '%s'; "
                 "using the default, %llu\n",
                 v, (unsigned long long)fallback);
    return fallback;
  }
  struct Copy {
    uint64_t hash;
    std::shared_ptr<void> data;
    size_t size;
  };
  std::mutex mutex;
  std::map<std::pair<const void *, const void *>, Copy> entries;
  size_t bytes = 0, limit = 0;
};

std::shared_ptr<void> alignedBuffer(size_t size) {
  void *p = std::aligned_alloc(4096, (size + 4095) / 4096 * 4096);
  if (!p) {
    std::fprintf(stderr,
                 "amp-cpu-runtime: out of memory (%zu bytes of "
                 "reordered oneDNN weights)\n",
                 size);
    std::abort();
  }
  return std::shared_ptr<void>(p, std::free);
}

/// Whether a convolution with source type `src` takes oneDNN's preferred
/// layouts (`any`, with reorders) rather than the caller's plain ones.
/// AMP_ONEDNN_CONV_LAYOUT=blocked|plain forces one for all. By default all
/// are blocked while the WeightCache is on; without it only bf16 ones
/// (oneDNN 2.6's bf16 im2col + GEMM is no faster than its f32 one: on
/// resnet18, 38 ms of brgconv against 92 ms of gemm:jit, one thread; in f32
/// brgconv saves less than the weights' reorders on every call cost).
bool blockedConvLayouts(dnnl::memory::data_type src) {
  static const int forced = [] {
    const char *v = std::getenv("AMP_ONEDNN_CONV_LAYOUT");
    if (!v || !*v)
      return -1;
    if (std::strcmp(v, "blocked") == 0)
      return 1;
    if (std::strcmp(v, "plain") == 0)
      return 0;
    std::fprintf(stderr,
                 "amp-cpu-runtime: warning: AMP_ONEDNN_CONV_LAYOUT "
                 "must be blocked or plain, got '%s'; ignored\n",
                 v);
    return -1;
  }();
  if (forced >= 0)
    return forced == 1;
  return src == dnnl::memory::data_type::bf16 ||
         WeightCache::get().budget() != 0;
}

/// The convolution for the caller's layouts `id`, `fd`, `od`, computing on
/// `cid` and `cfd` (the same layouts in the element types of the products:
/// bf16 where an f32 operand is rounded by its reorder): in oneDNN's
/// preferred layouts with reorders (blockedConvLayouts), or in the caller's
/// otherwise and where no implementation takes `any`. Throws
/// dnnl::error where oneDNN has none at all.
std::shared_ptr<ConvEntry>
createConv(const dnnl::memory::desc &id, const dnnl::memory::desc &fd,
           const dnnl::memory::desc &od, const dnnl::memory::desc &cid,
           const dnnl::memory::desc &cfd, const dnnl::memory::dims &strides,
           const dnnl::memory::dims &dil, const dnnl::memory::dims &padL,
           const dnnl::memory::dims &padR, float beta,
           const dnnl::primitive_attr &attr,
           const dnnl::memory::desc *cod = nullptr) {
  // `cod`: the destination's layout and type where the primitive computes
  // into another than the caller's (f32 for a residual's sum post-op).
  const dnnl::memory::desc &computeDst = cod ? *cod : od;
  auto entry = std::make_shared<ConvEntry>();
  entry->userSrc = id;
  entry->userWei = fd;
  entry->userDst = od;
  std::optional<dnnl::convolution_forward::primitive_desc> pd;
  if (blockedConvLayouts(cid.data_type())) {
    auto any = [](const dnnl::memory::desc &d) {
      return dnnl::memory::desc(d.dims(), d.data_type(),
                                dnnl::memory::format_tag::any);
    };
    try {
      pd = convDesc(any(cid), any(cfd), any(computeDst), strides, dil, padL,
                    padR, attr);
    } catch (const dnnl::error &) {
    }
  }
  if (!pd)
    pd = convDesc(cid, cfd, computeDst, strides, dil, padL, padR, attr);
  entry->conv = dnnl::convolution_forward(*pd);
  entry->src = pd->src_desc();
  entry->wei = pd->weights_desc();
  entry->dst = pd->dst_desc();
  if ((entry->reorderSrc = entry->src != id))
    entry->srcIn = makeReorder(id, entry->src);
  if ((entry->reorderWei = entry->wei != fd))
    entry->weiIn = makeReorder(fd, entry->wei);
  if ((entry->reorderDst = entry->dst != od)) {
    entry->dstOut = makeReorder(entry->dst, od);
    if (beta != 0.0f)
      entry->dstIn = makeReorder(od, entry->dst);
  }
  return entry;
}

/// The cached convolution for `key`, created on first use; null where
/// oneDNN has no implementation (remembered too).
template <typename Create>
std::shared_ptr<ConvEntry> lookupConv(const std::vector<int64_t> &key,
                                      Create create) {
  static std::mutex mutex;
  static std::map<std::vector<int64_t>, std::shared_ptr<ConvEntry>> entries;
  std::lock_guard<std::mutex> lock(mutex);
  auto it = entries.find(key);
  if (it == entries.end()) {
    std::shared_ptr<ConvEntry> entry;
    try {
      entry = create();
    } catch (const dnnl::error &) {
    }
    it = entries.emplace(key, entry).first;
  }
  return it->second;
}

/// Runs `e` on the caller's buffers, through this thread's blocked copies
/// where a layout differs (the weights' through the WeightCache).
void runConv(const ConvEntry &e, void *in, void *filter, void *out, float beta,
             const std::vector<std::pair<int, dnnl::memory>> &postArgs = {},
             void *residual = nullptr) {
  thread_local ThreadBuffer srcBuf, weiBuf, dstBuf;
  dnnl::memory userSrc(e.userSrc, engine(), in),
      userWei(e.userWei, engine(), filter), userDst(e.userDst, engine(), out);
  dnnl::memory src = userSrc, wei = userWei, dst = userDst;
  std::shared_ptr<void> cachedWei;
  if (e.reorderSrc) {
    src = dnnl::memory(e.src, engine(), srcBuf.get(e.src.get_size()));
    e.srcIn.execute(stream(), userSrc, src);
  }
  if (e.reorderWei) {
    WeightCache &cache = WeightCache::get();
    size_t span = e.userWei.get_size(), size = e.wei.get_size();
    if (cache.budget() != 0) {
      auto key = std::make_pair(static_cast<const void *>(&e),
                                static_cast<const void *>(filter));
      uint64_t hash = hashBytes(static_cast<const char *>(filter), span);
      bool hit;
      cachedWei = cache.find(key, hash, hit);
      if (!hit) {
        if (!cachedWei)
          cachedWei = alignedBuffer(size);
        wei = dnnl::memory(e.wei, engine(), cachedWei.get());
        e.weiIn.execute(stream(), userWei, wei);
        stream().wait();
        cache.put(key, hash, cachedWei, size);
      }
      wei = dnnl::memory(e.wei, engine(), cachedWei.get());
    } else {
      wei = dnnl::memory(e.wei, engine(), weiBuf.get(size));
      e.weiIn.execute(stream(), userWei, wei);
    }
  }
  if (e.reorderDst) {
    dst = dnnl::memory(e.dst, engine(), dstBuf.get(e.dst.get_size()));
    if (beta != 0.0f)
      e.dstIn.execute(stream(), userDst, dst);
  }
  if (e.residualSlot >= 0) {
    dnnl::memory userResidual(e.residualUser, engine(), residual);
    e.residualIn.execute(stream(), userResidual, dst);
  }
  std::unordered_map<int, dnnl::memory> args = {
      {DNNL_ARG_SRC, src}, {DNNL_ARG_WEIGHTS, wei}, {DNNL_ARG_DST, dst}};
  for (const auto &[arg, mem] : postArgs)
    args.emplace(arg, mem);
  e.conv.execute(stream(), args);
  if (e.reorderDst)
    e.dstOut.execute(stream(), dst, userDst);
  stream().wait();
}

#endif // AMP_HAVE_ONEDNN

void matmul(const MemRef<3> *a, const MemRef<3> *b, const MemRef<3> *c,
            float beta, Elem ea, Elem eb, Elem ec) {
  int64_t batch = c->sizes[0], m = c->sizes[1], n = c->sizes[2],
          k = a->sizes[2];
  bool shapesMatch = a->sizes[1] == m && b->sizes[1] == k && b->sizes[2] == n &&
                     (a->sizes[0] == batch || a->sizes[0] == 1) &&
                     (b->sizes[0] == batch || b->sizes[0] == 1);
  if (!shapesMatch) {
    std::fprintf(stderr,
                 "amp-cpu-runtime: ampOnednnMatmul: shapes %ldx%ldx%ld * "
                 "%ldx%ldx%ld -> %ldx%ldx%ld do not match\n",
                 (long)a->sizes[0], (long)a->sizes[1], (long)a->sizes[2],
                 (long)b->sizes[0], (long)b->sizes[1], (long)b->sizes[2],
                 (long)batch, (long)m, (long)n);
    std::abort();
  }
  if (batch == 0 || m == 0 || n == 0)
    return;
  if (k == 0) {
    // C = beta * C: nothing to add.
    if (beta == 0.0f)
      for (int64_t i = 0; i < batch; ++i)
        for (int64_t r = 0; r < m; ++r)
          for (int64_t col = 0; col < n; ++col)
            store(data(c, ec), ec,
                  i * c->strides[0] + r * c->strides[1] + col * c->strides[2],
                  0.0f);
    return;
  }
#ifdef AMP_HAVE_ONEDNN
  std::vector<int64_t> key = {0, int64_t(ea), int64_t(eb), int64_t(ec),
                              beta != 0.0f};
  appendKey(key, a);
  appendKey(key, b);
  appendKey(key, c);
  dnnl::primitive prim;
  bool ok = lookup(
      key,
      [&] {
        dnnl::memory::desc ad = describe(a, ea), bd = describe(b, eb),
                           cd = describe(c, ec);
#if DNNL_VERSION_MAJOR >= 3
        dnnl::matmul::primitive_desc pd(engine(), ad, bd, cd, sumAttr(beta));
#else
        dnnl::matmul::primitive_desc pd(dnnl::matmul::desc(ad, bd, cd),
                                        sumAttr(beta), engine());
#endif
        return dnnl::primitive(dnnl::matmul(pd));
      },
      prim);
  if (ok) {
    dnnl::memory am(describe(a, ea), engine(), data(a, ea)),
        bm(describe(b, eb), engine(), data(b, eb)),
        cm(describe(c, ec), engine(), data(c, ec));
    prim.execute(
        stream(),
        {{DNNL_ARG_SRC, am}, {DNNL_ARG_WEIGHTS, bm}, {DNNL_ARG_DST, cm}});
    stream().wait();
    return;
  }
#endif
  warnFallback(std::string("ampOnednnMatmul ") + name(ea) + " x " + name(eb) +
               " -> " + name(ec));
  referenceMatmul(a, b, c, ea, eb, ec, beta);
}

/// C = A B (no accumulation into C) followed by the element-wise
/// post-ops of `program` on the f32 accumulators, rounded to `ec`: one
/// oneDNN matmul with post-ops (a Linear's bias per column, GELU, a
/// residual), else the matmul into an f32 buffer and a loop (said once).
void matmulPost(const MemRef<3> *a, const MemRef<3> *b, const MemRef<3> *c,
                Elem ea, Elem eb, Elem ec, int64_t program,
                MemRef<3> *const *slots) {
  std::vector<PostOp> ops = decodePostOps(program);
  if (c->sizes[0] == 0 || c->sizes[1] == 0 || c->sizes[2] == 0)
    return;
#ifdef AMP_HAVE_ONEDNN
  if (a->sizes[2] != 0 && a->sizes[1] == c->sizes[1] &&
      b->sizes[2] == c->sizes[2] && a->sizes[2] == b->sizes[1] &&
      a->sizes[0] == 1 && b->sizes[0] == 1 && c->sizes[0] == 1) {
    std::vector<int64_t> key = {4, int64_t(ea), int64_t(eb), int64_t(ec)};
    appendKey(key, a);
    appendKey(key, b);
    appendKey(key, c);
    appendPostKey(key, program, ops, slots);
    dnnl::primitive prim;
    bool ok = lookup(
        key,
        [&] {
          dnnl::memory::desc ad = describe(a, ea), bd = describe(b, eb),
                             cd = describe(c, ec);
          dnnl::primitive_attr attr = postOpsAttr(ops, slots);
#if DNNL_VERSION_MAJOR >= 3
          dnnl::matmul::primitive_desc pd(engine(), ad, bd, cd, attr);
#else
          dnnl::matmul::primitive_desc pd(dnnl::matmul::desc(ad, bd, cd), attr,
                                          engine());
#endif
          return dnnl::primitive(dnnl::matmul(pd));
        },
        prim);
    if (ok) {
      dnnl::memory am(describe(a, ea), engine(), data(a, ea)),
          bm(describe(b, eb), engine(), data(b, eb)),
          cm(describe(c, ec), engine(), data(c, ec));
      std::unordered_map<int, dnnl::memory> args = {
          {DNNL_ARG_SRC, am}, {DNNL_ARG_WEIGHTS, bm}, {DNNL_ARG_DST, cm}};
      for (const auto &[arg, mem] : postOpArgs(ops, slots))
        args.emplace(arg, mem);
      prim.execute(stream(), args);
      stream().wait();
      return;
    }
  }
#endif
  warnPostOpsFallback(std::string("ampOnednnMatmulPost ") + name(ea) + " x " +
                      name(eb) + " -> " + name(ec));
  thread_local std::vector<float> storage;
  MemRef<3> acc = denseF32(c, storage);
  matmul(a, b, &acc, 0.0f, ea, eb, Elem::F32);
  referencePostOps(reinterpret_cast<const float *>(acc.aligned), c, ec, ops,
                   slots);
}

void conv2d(const MemRef<4> *in, const MemRef<4> *f, const MemRef<4> *out,
            int64_t sh, int64_t sw, int64_t dh, int64_t dw, int64_t pt,
            int64_t pl, float beta, Elem ei, Elem ef, Elem eo,
            bool bf16Products) {
  const int64_t s[2] = {sh, sw}, d[2] = {dh, dw}, p[2] = {pt, pl};
  bool shapesMatch = in->sizes[0] == out->sizes[0] &&
                     f->sizes[0] == out->sizes[1] &&
                     f->sizes[1] == in->sizes[1] && pt >= 0 && pl >= 0;
  if (!shapesMatch) {
    std::fprintf(stderr, "amp-cpu-runtime: ampOnednnConv2dNchwFchw: shapes "
                         "do not match\n");
    std::abort();
  }
  for (int i = 0; i < 4; ++i)
    if (out->sizes[i] == 0)
      return;
#ifdef AMP_HAVE_ONEDNN
  std::vector<int64_t> key = {1,  int64_t(ei), int64_t(ef),  int64_t(eo),
                              sh, sw,          dh,           dw,
                              pt, pl,          beta != 0.0f, bf16Products};
  appendKey(key, in);
  appendKey(key, f);
  appendKey(key, out);
  // oneDNN wants in + pad_l + pad_r = (out - 1) * stride + (k - 1) *
  // dilation + 1: the bottom and right padding follow from the shapes (a
  // negative one drops the edges the window does not reach).
  dnnl::memory::dims strides = {sh, sw}, dil = {dh - 1, dw - 1},
                     padL = {pt, pl},
                     padR = {(out->sizes[2] - 1) * sh + (f->sizes[2] - 1) * dh +
                                 1 - in->sizes[2] - pt,
                             (out->sizes[3] - 1) * sw + (f->sizes[3] - 1) * dw +
                                 1 - in->sizes[3] - pl};
  std::shared_ptr<ConvEntry> entry = lookupConv(key, [&] {
    Elem ci = bf16Products ? Elem::BF16 : ei,
         cf = bf16Products ? Elem::BF16 : ef;
    return createConv(describe(in, ei), describe(f, ef), describe(out, eo),
                      describe(in, ci), describe(f, cf), strides, dil, padL,
                      padR, beta, sumAttr(beta));
  });
  if (entry) {
    runConv(*entry, data(in, ei), data(f, ef), data(out, eo), beta);
    return;
  }
#endif
  warnFallback(std::string(bf16Products ? "ampOnednnConv2dBf16 "
                                        : "ampOnednnConv2dNchwFchw ") +
               name(ei) + " x " + name(ef) + " -> " + name(eo));
  referenceConv(in, f, out, s, d, p, beta, ei, ef, eo, bf16Products);
}

/// The convolution of conv2d (beta 0) followed by the element-wise
/// post-ops of `program` (see decodePostOps) on its f32 accumulators, then
/// rounded to `eo`: one oneDNN primitive with post-ops where oneDNN takes
/// them, else the convolution into an f32 buffer and a loop for the
/// post-ops (said once).
void conv2dPost(const MemRef<4> *in, const MemRef<4> *f, const MemRef<4> *out,
                int64_t sh, int64_t sw, int64_t dh, int64_t dw, int64_t pt,
                int64_t pl, Elem ei, Elem ef, Elem eo, bool bf16Products,
                int64_t program, MemRef<4> *const *slots) {
  std::vector<PostOp> ops = decodePostOps(program);
  for (int i = 0; i < 4; ++i)
    if (out->sizes[i] == 0)
      return;
  std::string what = std::string("ampOnednnConv2dPost ") + name(ei) + " x " +
                     name(ef) + " -> " + name(eo);
#ifdef AMP_HAVE_ONEDNN
  bool shapesMatch = in->sizes[0] == out->sizes[0] &&
                     f->sizes[0] == out->sizes[1] &&
                     f->sizes[1] == in->sizes[1] && pt >= 0 && pl >= 0;
  if (shapesMatch) {
    std::vector<int64_t> key = {3,  int64_t(ei), int64_t(ef), int64_t(eo),
                                sh, sw,          dh,          dw,
                                pt, pl,          bf16Products};
    appendKey(key, in);
    appendKey(key, f);
    appendKey(key, out);
    appendPostKey(key, program, ops, slots);
    dnnl::memory::dims strides = {sh, sw}, dil = {dh - 1, dw - 1},
                       padL = {pt, pl},
                       padR = {
                           (out->sizes[2] - 1) * sh + (f->sizes[2] - 1) * dh +
                               1 - in->sizes[2] - pt,
                           (out->sizes[3] - 1) * sw + (f->sizes[3] - 1) * dw +
                               1 - in->sizes[3] - pl};
    int sum = residualOp(ops, slots, out);
    std::shared_ptr<ConvEntry> entry = lookupConv(key, [&] {
      Elem ci = bf16Products ? Elem::BF16 : ei,
           cf = bf16Products ? Elem::BF16 : ef;
      // With a residual, oneDNN computes into an f32 destination (which
      // holds the residual before the call) and the reorder out of it
      // rounds to `eo`: the sum is of the f32 residual, as in the loop.
      dnnl::memory::desc od = describe(out, eo),
                         cod = describe(out, sum >= 0 ? Elem::F32 : eo);
      std::shared_ptr<ConvEntry> e =
          createConv(describe(in, ei), describe(f, ef), od, describe(in, ci),
                     describe(f, cf), strides, dil, padL, padR, 0.0f,
                     postOpsAttr(ops, slots, sum), &cod);
      if (sum >= 0) {
        e->residualSlot = ops[sum].slot;
        e->residualUser = describe(slots[ops[sum].slot], Elem::F32);
        e->residualIn = makeReorder(e->residualUser, e->dst);
      }
      return e;
    });
    if (entry) {
      runConv(*entry, data(in, ei), data(f, ef), data(out, eo), 0.0f,
              postOpArgs(ops, slots, sum),
              sum >= 0 ? data(slots[ops[sum].slot], Elem::F32) : nullptr);
      return;
    }
  }
#endif
  warnPostOpsFallback(what);
  thread_local std::vector<float> storage;
  MemRef<4> acc = denseF32(out, storage);
  conv2d(in, f, &acc, sh, sw, dh, dw, pt, pl, 0.0f, ei, ef, Elem::F32,
         bf16Products);
  referencePostOps(reinterpret_cast<const float *>(acc.aligned), out, eo, ops,
                   slots);
}

/// linalg.pooling_nchw_max of `in` padded with pt rows and pl columns of
/// -inf (the bottom and right padding follow from the shapes), written to
/// `out`: oneDNN's max pooling, which ignores padding; a reference loop
/// where it has no implementation.
void poolMax(const MemRef<4> *in, const MemRef<4> *out, int64_t kh, int64_t kw,
             int64_t sh, int64_t sw, int64_t dh, int64_t dw, int64_t pt,
             int64_t pl, Elem e) {
  if (in->sizes[0] != out->sizes[0] || in->sizes[1] != out->sizes[1] ||
      pt < 0 || pl < 0 || kh < 1 || kw < 1) {
    std::fprintf(stderr, "amp-cpu-runtime: ampOnednnPoolNchwMax: shapes do "
                         "not match\n");
    std::abort();
  }
  for (int i = 0; i < 4; ++i)
    if (out->sizes[i] == 0)
      return;
#ifdef AMP_HAVE_ONEDNN
  std::vector<int64_t> key = {2, int64_t(e), kh, kw, sh, sw, dh, dw, pt, pl};
  appendKey(key, in);
  appendKey(key, out);
  dnnl::memory::dims strides = {sh, sw}, kernel = {kh, kw},
                     dil = {dh - 1, dw - 1}, padL = {pt, pl},
                     padR = {(out->sizes[2] - 1) * sh + (kh - 1) * dh + 1 -
                                 in->sizes[2] - pt,
                             (out->sizes[3] - 1) * sw + (kw - 1) * dw + 1 -
                                 in->sizes[3] - pl};
  dnnl::primitive prim;
  bool ok = lookup(
      key,
      [&] {
        dnnl::memory::desc id = describe(in, e), od = describe(out, e);
#if DNNL_VERSION_MAJOR >= 3
        dnnl::pooling_forward::primitive_desc pd(
            engine(), dnnl::prop_kind::forward_inference,
            dnnl::algorithm::pooling_max, id, od, strides, kernel, dil, padL,
            padR);
        return dnnl::primitive(dnnl::pooling_forward(pd));
#else
        dnnl::pooling_v2_forward::primitive_desc pd(
            dnnl::pooling_v2_forward::desc(dnnl::prop_kind::forward_inference,
                                           dnnl::algorithm::pooling_max, id, od,
                                           strides, kernel, dil, padL, padR),
            engine());
        return dnnl::primitive(dnnl::pooling_v2_forward(pd));
#endif
      },
      prim);
  if (ok) {
    dnnl::memory im(describe(in, e), engine(), data(in, e)),
        om(describe(out, e), engine(), data(out, e));
    prim.execute(stream(), {{DNNL_ARG_SRC, im}, {DNNL_ARG_DST, om}});
    stream().wait();
    return;
  }
#endif
  warnFallback(std::string("ampOnednnPoolNchwMax ") + name(e));
  const char *pi = data(in, e);
  char *po = data(out, e);
  for (int64_t n = 0; n < out->sizes[0]; ++n)
    for (int64_t c = 0; c < out->sizes[1]; ++c)
      for (int64_t y = 0; y < out->sizes[2]; ++y)
        for (int64_t x = 0; x < out->sizes[3]; ++x) {
          float m = -std::numeric_limits<float>::infinity();
          for (int64_t i = 0; i < kh; ++i)
            for (int64_t j = 0; j < kw; ++j) {
              int64_t r = y * sh + i * dh - pt, q = x * sw + j * dw - pl;
              if (r < 0 || r >= in->sizes[2] || q < 0 || q >= in->sizes[3])
                continue; // -inf padding
              float v = load(pi, e,
                             n * in->strides[0] + c * in->strides[1] +
                                 r * in->strides[2] + q * in->strides[3]);
              m = std::isnan(v) || v > m ? v : m;
              if (std::isnan(m))
                break;
            }
          store(po, e,
                n * out->strides[0] + c * out->strides[1] +
                    y * out->strides[2] + x * out->strides[3],
                m);
        }
}

} // namespace

extern "C" int ampCpuHasOnednn(void) {
#ifdef AMP_HAVE_ONEDNN
  return 1;
#else
  return 0;
#endif
}

#define AMP_MATMUL(A, B, C, EA, EB, EC)                                        \
  extern "C" void _mlir_ciface_ampOnednnMatmul_##A##_##B##_##C(                \
      MemRef<3> *a, MemRef<3> *b, MemRef<3> *c, float beta) {                  \
    matmul(a, b, c, beta, Elem::EA, Elem::EB, Elem::EC);                       \
  }
AMP_MATMUL(f32, f32, f32, F32, F32, F32)
AMP_MATMUL(bf16, bf16, f32, BF16, BF16, F32)
AMP_MATMUL(bf16, bf16, bf16, BF16, BF16, BF16)
#undef AMP_MATMUL

// _mlir_ciface_ampOnednnMatmulPost_<A>_<B>_<C>_<S>(A, B, C, program, S0,
// ..., S5): C = A B (rank-3 views, batch 1) with the element-wise post-ops
// of `program` on the f32 accumulators, their operands S0-S5 rank-3 views
// of element type S broadcast where a dimension is 1 ([1, 1, N]: per
// column).
#define AMP_MATMUL_POST(A, B, C, S, EA, EB, EC)                                \
  extern "C" void _mlir_ciface_ampOnednnMatmulPost_##A##_##B##_##C##_##S(      \
      MemRef<3> *a, MemRef<3> *b, MemRef<3> *c, int64_t program,               \
      MemRef<3> *s0, MemRef<3> *s1, MemRef<3> *s2, MemRef<3> *s3,              \
      MemRef<3> *s4, MemRef<3> *s5) {                                          \
    MemRef<3> *const slots[kPostSlots] = {s0, s1, s2, s3, s4, s5};             \
    matmulPost(a, b, c, Elem::EA, Elem::EB, Elem::EC, program, slots);         \
  }
AMP_MATMUL_POST(f32, f32, f32, f32, F32, F32, F32)
AMP_MATMUL_POST(f32, f32, f32, bf16, F32, F32, F32)
AMP_MATMUL_POST(bf16, bf16, f32, f32, BF16, BF16, F32)
AMP_MATMUL_POST(bf16, bf16, f32, bf16, BF16, BF16, F32)
AMP_MATMUL_POST(bf16, bf16, bf16, f32, BF16, BF16, BF16)
AMP_MATMUL_POST(bf16, bf16, bf16, bf16, BF16, BF16, BF16)
#undef AMP_MATMUL_POST

#define AMP_CONV(A, B, C, EA, EB, EC)                                          \
  extern "C" void _mlir_ciface_ampOnednnConv2dNchwFchw_##A##_##B##_##C(        \
      MemRef<4> *in, MemRef<4> *filter, MemRef<4> *out, int64_t sh,            \
      int64_t sw, int64_t dh, int64_t dw, int64_t pt, int64_t pl,              \
      float beta) {                                                            \
    conv2d(in, filter, out, sh, sw, dh, dw, pt, pl, beta, Elem::EA, Elem::EB,  \
           Elem::EC, /*bf16Products=*/false);                                  \
  }
AMP_CONV(f32, f32, f32, F32, F32, F32)
AMP_CONV(bf16, bf16, f32, BF16, BF16, F32)
AMP_CONV(bf16, bf16, bf16, BF16, BF16, BF16)
#undef AMP_CONV

// _mlir_ciface_ampOnednnConv2dBf16_<I>_<F>_<O>: the convolution of bf16 x
// bf16 products with fp32 accumulation whose f32 input and/or filter
// buffers are rounded to bf16 (round to nearest even) by the reorders into
// oneDNN's layouts: autocast's casts folded into the call.
#define AMP_CONV_BF16(A, B, C, EA, EB, EC)                                     \
  extern "C" void _mlir_ciface_ampOnednnConv2dBf16_##A##_##B##_##C(            \
      MemRef<4> *in, MemRef<4> *filter, MemRef<4> *out, int64_t sh,            \
      int64_t sw, int64_t dh, int64_t dw, int64_t pt, int64_t pl,              \
      float beta) {                                                            \
    conv2d(in, filter, out, sh, sw, dh, dw, pt, pl, beta, Elem::EA, Elem::EB,  \
           Elem::EC, /*bf16Products=*/true);                                   \
  }
AMP_CONV_BF16(f32, f32, f32, F32, F32, F32)
AMP_CONV_BF16(f32, bf16, f32, F32, BF16, F32)
AMP_CONV_BF16(bf16, f32, f32, BF16, F32, F32)
AMP_CONV_BF16(f32, f32, bf16, F32, F32, BF16)
AMP_CONV_BF16(f32, bf16, bf16, F32, BF16, BF16)
AMP_CONV_BF16(bf16, f32, bf16, BF16, F32, BF16)
#undef AMP_CONV_BF16

// _mlir_ciface_ampOnednnConv2dPost_<I>_<F>_<O>(I, F, O, sh, sw, dh, dw, pt,
// pl, bf16Products, program, S0, ..., S5): the convolution (C = conv, no
// accumulation into O) with the element-wise post-ops of `program` on its
// f32 accumulators, their operands S0-S5 rank-4 views broadcast where a
// dimension is 1 (per channel: 1 x C x 1 x 1); bf16Products as
// ampOnednnConv2dBf16 (f32 operands rounded to bf16 by the reorders).
#define AMP_CONV_POST(A, B, C, EA, EB, EC)                                     \
  extern "C" void _mlir_ciface_ampOnednnConv2dPost_##A##_##B##_##C(            \
      MemRef<4> *in, MemRef<4> *filter, MemRef<4> *out, int64_t sh,            \
      int64_t sw, int64_t dh, int64_t dw, int64_t pt, int64_t pl,              \
      int64_t bf16Products, int64_t program, MemRef<4> *s0, MemRef<4> *s1,     \
      MemRef<4> *s2, MemRef<4> *s3, MemRef<4> *s4, MemRef<4> *s5) {            \
    MemRef<4> *const slots[kPostSlots] = {s0, s1, s2, s3, s4, s5};             \
    conv2dPost(in, filter, out, sh, sw, dh, dw, pt, pl, Elem::EA, Elem::EB,    \
               Elem::EC, bf16Products != 0, program, slots);                   \
  }
AMP_CONV_POST(f32, f32, f32, F32, F32, F32)
AMP_CONV_POST(f32, f32, bf16, F32, F32, BF16)
AMP_CONV_POST(f32, bf16, f32, F32, BF16, F32)
AMP_CONV_POST(f32, bf16, bf16, F32, BF16, BF16)
AMP_CONV_POST(bf16, f32, f32, BF16, F32, F32)
AMP_CONV_POST(bf16, f32, bf16, BF16, F32, BF16)
AMP_CONV_POST(bf16, bf16, f32, BF16, BF16, F32)
AMP_CONV_POST(bf16, bf16, bf16, BF16, BF16, BF16)
#undef AMP_CONV_POST

// _mlir_ciface_ampOnednnPoolNchwMax_<T>(I, O, kh, kw, sh, sw, dh, dw, pt,
// pl): linalg.pooling_nchw_max with a kh x kw window on I padded with -inf.
#define AMP_POOL(T, E)                                                         \
  extern "C" void _mlir_ciface_ampOnednnPoolNchwMax_##T(                       \
      MemRef<4> *in, MemRef<4> *out, int64_t kh, int64_t kw, int64_t sh,       \
      int64_t sw, int64_t dh, int64_t dw, int64_t pt, int64_t pl) {            \
    poolMax(in, out, kh, kw, sh, sw, dh, dw, pt, pl, Elem::E);                 \
  }
AMP_POOL(f32, F32)
AMP_POOL(bf16, BF16)
#undef AMP_POOL
