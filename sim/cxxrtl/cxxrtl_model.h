// The CXXRTL side of the drivers' model interface (see hwmovegen/sim/harness/driver.h):
// a design's generated top.h, its ports read and written, a clock cycle as evals.
#pragma once

#include <cstdint>
#include <type_traits>
#include "top.h"

namespace hwmg {

// A port is a value<> or, when a flip-flop drives it, a wire<>: its bits either way.
template<size_t Bits> const cxxrtl::value<Bits> &bits_of(const cxxrtl::value<Bits> &v) { return v; }
template<size_t Bits> const cxxrtl::value<Bits> &bits_of(const cxxrtl::wire<Bits> &w) { return w.curr; }

template<class T, size_t Bits> void put(cxxrtl::value<Bits> &port, T value) { port.template set<T>(value); }
template<class T, class Port> T get(const Port &port) { return bits_of(port).template get<T>(); }

// A port's bits as 32-bit words, least significant first.
template<class Port> struct Words {
    using bits = typename std::decay<decltype(bits_of(std::declval<const Port &>()))>::type;
    static_assert(sizeof(cxxrtl::chunk_t) == 4, "ports are copied in 32-bit chunks");
    static constexpr int count = bits::chunks;
    static uint32_t word(const Port &port, int index) { return bits_of(port).data[index]; }
};

struct Model {
    cxxrtl_design::p_top top;
    bool settled = true;
    // A design with hierarchy (shared copies of a module) may need several deltas a cycle:
    // the cycle is then stepped, the edge and again with the clock low, so that the outputs
    // read after it are those of the new cycle, settled.
    bool hierarchical = false;

    // One clock cycle costs one eval(): with the inputs set, raise the clock and eval (the
    // outputs now show the values sampled at this edge, exactly what the pysim testbench's
    // tick().sample() sees), then `finish_cycle` commits the flip-flops and lowers the clock
    // without another eval. With hierarchy: settle the inputs with the clock low (the outputs
    // are then what the edge samples), and in `finish_cycle` step the edge and settle.
    void begin_cycle() {
        if (hierarchical) {
            top.step();
            return;
        }
        top.p_clk.set<bool>(true);
        if (!top.eval()) settled = false;   // the design would need step(); reported as an error
    }

    void finish_cycle() {
        if (hierarchical) {
            top.p_clk.set<bool>(true);
            top.step();
            top.p_clk.set<bool>(false);
            top.step();
            return;
        }
        top.commit();
        top.p_clk.set<bool>(false);
        top.commit();
    }

    // A cycle whose outputs nobody reads before the edge: with hierarchy, the edge's step
    // settles the inputs itself.
    void tick() {
        if (!hierarchical) begin_cycle();
        finish_cycle();
    }
};

}  // namespace hwmg
