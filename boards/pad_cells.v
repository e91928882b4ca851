// The I/O cell of a routed netlist on one of the top's input or output ports, one way: Yosys's models
// of the ECP5's TRELLIS_IO and the iCE40's SB_IO drive an inout pad, which Verilator refuses for a pad
// on one of the top's input ports; netlist.py rewrites each to one of these.
module HWMG_PAD_IN(input B, output O);
	assign O = B;
endmodule

module HWMG_PAD_OUT(input I, output B);
	assign B = I;
endmodule
