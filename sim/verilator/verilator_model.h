// The Verilator side of the drivers' model interface (see hwmovegen/sim/harness/driver.h):
// the design's Vtop, its ports read and written, a clock cycle as evals.
#pragma once

#include <cstdint>
#include <memory>
#include <type_traits>
#include "verilated.h"
#include "Vtop.h"

namespace hwmg {

// Verilator's ports are integers (CData ... QData) or, past 64 bits, VlWide<> words.
template<class T, class Port> void put(Port &port, T value) { port = value; }
template<class T, class Port> T get(const Port &port) { return T(port); }

template<class Port> struct Words {
    static_assert(std::is_integral<Port>::value, "a port of at most 64 bits is an integer");
    static constexpr int count = (sizeof(Port) + 3) / 4;
    static uint32_t word(const Port &port, int index) { return uint32_t(uint64_t(port) >> (32 * index)); }
};
template<size_t N> struct Words<VlWide<N>> {
    static_assert(sizeof(EData) == 4, "wide ports are 32-bit words");
    static constexpr int count = N;
    static uint32_t word(const VlWide<N> &port, int index) { return port[index]; }
};

struct Model {
    std::unique_ptr<VerilatedContext> context{new VerilatedContext};
    std::unique_ptr<Vtop> top{new Vtop(context.get(), "top")};
    bool settled = true;            // Verilator settles every eval
    bool hierarchical = false;      // the design is flattened: one protocol for every design

    // A cycle is two evals: with the clock low, the inputs as set are settled (the outputs are
    // then what the edge samples, exactly what the pysim testbench's tick().sample() sees);
    // `finish_cycle` raises the clock, the flip-flops take their values and the outputs
    // settle again, so that those read after it are the new cycle's.
    void begin_cycle() {
        top->clk = 0;
        top->eval();
    }

    void finish_cycle() {
        top->clk = 1;
        top->eval();
    }

    void tick() {
        begin_cycle();
        finish_cycle();
    }

    ~Model() { top->final(); }
};

}  // namespace hwmg
