// Instruction throughput of elementwise ops on GPU SMs, for ixa's own cost
// model (docs/cost-model.md "The ixa model"): how many FP32-FMA issue
// slots one element of an op takes on one lane. An SM issues fpus_per_core
// slots per clock. Where XLA's op profiles charge an op's latency (a
// dependent chain in one thread), this charges its throughput: the SFU
// ops (exp, log, rsqrt, sin, ...) run 16 per SM per clock against 128
// FMAs, so each costs 8 slots plus its range reduction; 16-bit floats
// pair two elements per instruction for adds, multiplies and FMAs; fp8
// and other narrow types are converted to f32 and back; f64 runs at the
// device's FP64 rate. The numbers are estimates from the architectures'
// published issue rates, not measurements.
#ifndef IXA_HW_THROUGHPUT_H_
#define IXA_HW_THROUGHPUT_H_

#include <string_view>

namespace ixa::hw {

struct Device;

// FP32 lanes per FP64 lane (2 on A100, H100, B200; 64 on GA10x parts
// such as the RTX A6000).
double Fp64Ratio(const Device& device);

// Issue slots per element of `opcode` computing `type` (operand type for a
// comparison, destination type for a conversion; `from` is the source
// type of a conversion, else empty). Ops that move data only cost 0.
double IssueSlots(const Device& device, std::string_view opcode,
                  std::string_view type, std::string_view from = {});

}  // namespace ixa::hw

#endif  // IXA_HW_THROUGHPUT_H_
