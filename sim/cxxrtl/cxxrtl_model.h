// The CXXRTL side of driver.h: the model's class, its ports' bits, and one clock cycle.
//
// A port is a value<> or, when a flip-flop drives it, a wire<>: its bits either way.
#pragma once

#include <cstdint>
#include <type_traits>
#include <utility>
#include "top.h"

namespace hwmg {

using Top = cxxrtl_design::p_top;
static_assert(sizeof(cxxrtl::chunk_t) == 4, "ports are copied in 32-bit chunks");

template<size_t Bits> const cxxrtl::value<Bits> &bits_of(const cxxrtl::value<Bits> &v) { return v; }
template<size_t Bits> const cxxrtl::value<Bits> &bits_of(const cxxrtl::wire<Bits> &w) { return w.curr; }

template<class T, class Port> T get(const Port &port) { return bits_of(port).template get<T>(); }
template<class T, class Port> void set(Port &port, T value) { port.template set<T>(value); }

// The 32-bit words of a port of type Port.
template<class Port> struct Words {
    static constexpr size_t count = std::decay<decltype(bits_of(std::declval<const Port &>()))>::type::chunks;
};
template<class Port> void get_words(const Port &port, uint32_t *words) {
    const auto &value = bits_of(port);
    for (size_t w = 0; w < Words<Port>::count; w++) words[w] = value.data[w];
}
template<size_t Bits> void set_words(cxxrtl::value<Bits> &v, const uint32_t *words) {
    for (size_t w = 0; w < cxxrtl::value<Bits>::chunks; w++) v.data[w] = words[w];
}
template<size_t Bits> void set_words(cxxrtl::wire<Bits> &v, const uint32_t *words) {
    for (size_t w = 0; w < cxxrtl::value<Bits>::chunks; w++) v.next.data[w] = words[w];
}

template<class T = Top>
struct Model {
    T top;
    uint64_t clock_cycles = 0;         // every simulated cycle, loading included
    bool settled = true;
    // A design with hierarchy (shared copies of a module) may need several deltas a cycle:
    // `tick` then steps the edge, and steps again with the clock low, so that the outputs
    // read after it are those of the new cycle, settled.
    bool hierarchical = false;

    // One clock cycle costs one eval(): with the inputs set, raise the clock and
    // eval (the outputs now show the values sampled at this edge, exactly what
    // the pysim testbench's tick().sample() sees), then `finish_cycle` commits
    // the flip-flops and lowers the clock without another eval.
    // With hierarchy the same cycle takes steps: settle the inputs with the clock low (the
    // outputs are then what the edge samples), and in `finish_cycle` step the edge and settle.
    void begin_cycle() {
        if (hierarchical) {
            top.step();
            return;
        }
        top.p_clk.template set<bool>(true);
        if (!top.eval()) settled = false;   // the design would need step(); reported as an error
    }

    void finish_cycle() {
        if (hierarchical) {
            top.p_clk.template set<bool>(true);
            top.step();
            top.p_clk.template set<bool>(false);
            top.step();
            clock_cycles++;
            return;
        }
        top.commit();
        top.p_clk.template set<bool>(false);
        top.commit();
        clock_cycles++;
    }

    // With hierarchy the inputs are settled by the edge's step itself.
    void tick() {
        if (!hierarchical) begin_cycle();
        finish_cycle();
    }

    // The outputs of inputs just set, without a clock edge.
    void settle() { top.step(); }
};

}  // namespace hwmg
