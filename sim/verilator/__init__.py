"""The exported Verilog in Verilator: :mod:`.build` compiles a netlist, :mod:`.cocotb_testbench`
drives it through cocotb."""
