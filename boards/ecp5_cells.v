// Models of the ECP5 cells that Yosys's share/ecp5 lacks (hwmovegen/boards/netlist.py simulates netlists with them).
//
// The ECP5's 18 Kbit block RAM, DP16KD, whose model in Yosys's share/ecp5/cells_sim.v is a black box:
// two ports of 1, 2, 4, 9 or 18 bits, the contents of INITVAL_00..3F (sixteen 18-bit words to a
// 320-bit row, each padded to 20 bits; in the 1, 2 and 4 bit modes the two 9th bits of a word
// are parity and hold no data), write modes NORMAL, WRITETHROUGH and READBEFOREWRITE, the output
// register (REGMODE OUTREG, enabled by OCE), a reset (RESETMODE SYNC or ASYNC) of the outputs,
// and byte enables in the 18-bit mode (AD[1:0] on a write). Generated with the rows listed by a
// loop (Verilog cannot index parameters by name); behaviour only, as Yosys's models are.
module DP16KD(
	input DIA17, DIA16, DIA15, DIA14, DIA13, DIA12, DIA11, DIA10, DIA9, DIA8, DIA7, DIA6, DIA5, DIA4, DIA3, DIA2, DIA1, DIA0,
	input ADA13, ADA12, ADA11, ADA10, ADA9, ADA8, ADA7, ADA6, ADA5, ADA4, ADA3, ADA2, ADA1, ADA0,
	input CEA, OCEA, CLKA, WEA, RSTA, CSA2, CSA1, CSA0,
	output DOA17, DOA16, DOA15, DOA14, DOA13, DOA12, DOA11, DOA10, DOA9, DOA8, DOA7, DOA6, DOA5, DOA4, DOA3, DOA2, DOA1, DOA0,
	input DIB17, DIB16, DIB15, DIB14, DIB13, DIB12, DIB11, DIB10, DIB9, DIB8, DIB7, DIB6, DIB5, DIB4, DIB3, DIB2, DIB1, DIB0,
	input ADB13, ADB12, ADB11, ADB10, ADB9, ADB8, ADB7, ADB6, ADB5, ADB4, ADB3, ADB2, ADB1, ADB0,
	input CEB, OCEB, CLKB, WEB, RSTB, CSB2, CSB1, CSB0,
	output DOB17, DOB16, DOB15, DOB14, DOB13, DOB12, DOB11, DOB10, DOB9, DOB8, DOB7, DOB6, DOB5, DOB4, DOB3, DOB2, DOB1, DOB0
);
	parameter integer DATA_WIDTH_A = 18;
	parameter integer DATA_WIDTH_B = 18;
	parameter REGMODE_A = "NOREG";
	parameter REGMODE_B = "NOREG";
	parameter RESETMODE = "SYNC";
	parameter ASYNC_RESET_RELEASE = "SYNC";
	parameter CSDECODE_A = "0b000";
	parameter CSDECODE_B = "0b000";
	parameter WRITEMODE_A = "NORMAL";
	parameter WRITEMODE_B = "NORMAL";
	parameter CLKAMUX = "CLKA";
	parameter CLKBMUX = "CLKB";
	parameter GSR = "ENABLED";
	parameter INIT_DATA = "STATIC";
	parameter [319:0] INITVAL_00 = 320'h0;
	parameter [319:0] INITVAL_01 = 320'h0;
	parameter [319:0] INITVAL_02 = 320'h0;
	parameter [319:0] INITVAL_03 = 320'h0;
	parameter [319:0] INITVAL_04 = 320'h0;
	parameter [319:0] INITVAL_05 = 320'h0;
	parameter [319:0] INITVAL_06 = 320'h0;
	parameter [319:0] INITVAL_07 = 320'h0;
	parameter [319:0] INITVAL_08 = 320'h0;
	parameter [319:0] INITVAL_09 = 320'h0;
	parameter [319:0] INITVAL_0A = 320'h0;
	parameter [319:0] INITVAL_0B = 320'h0;
	parameter [319:0] INITVAL_0C = 320'h0;
	parameter [319:0] INITVAL_0D = 320'h0;
	parameter [319:0] INITVAL_0E = 320'h0;
	parameter [319:0] INITVAL_0F = 320'h0;
	parameter [319:0] INITVAL_10 = 320'h0;
	parameter [319:0] INITVAL_11 = 320'h0;
	parameter [319:0] INITVAL_12 = 320'h0;
	parameter [319:0] INITVAL_13 = 320'h0;
	parameter [319:0] INITVAL_14 = 320'h0;
	parameter [319:0] INITVAL_15 = 320'h0;
	parameter [319:0] INITVAL_16 = 320'h0;
	parameter [319:0] INITVAL_17 = 320'h0;
	parameter [319:0] INITVAL_18 = 320'h0;
	parameter [319:0] INITVAL_19 = 320'h0;
	parameter [319:0] INITVAL_1A = 320'h0;
	parameter [319:0] INITVAL_1B = 320'h0;
	parameter [319:0] INITVAL_1C = 320'h0;
	parameter [319:0] INITVAL_1D = 320'h0;
	parameter [319:0] INITVAL_1E = 320'h0;
	parameter [319:0] INITVAL_1F = 320'h0;
	parameter [319:0] INITVAL_20 = 320'h0;
	parameter [319:0] INITVAL_21 = 320'h0;
	parameter [319:0] INITVAL_22 = 320'h0;
	parameter [319:0] INITVAL_23 = 320'h0;
	parameter [319:0] INITVAL_24 = 320'h0;
	parameter [319:0] INITVAL_25 = 320'h0;
	parameter [319:0] INITVAL_26 = 320'h0;
	parameter [319:0] INITVAL_27 = 320'h0;
	parameter [319:0] INITVAL_28 = 320'h0;
	parameter [319:0] INITVAL_29 = 320'h0;
	parameter [319:0] INITVAL_2A = 320'h0;
	parameter [319:0] INITVAL_2B = 320'h0;
	parameter [319:0] INITVAL_2C = 320'h0;
	parameter [319:0] INITVAL_2D = 320'h0;
	parameter [319:0] INITVAL_2E = 320'h0;
	parameter [319:0] INITVAL_2F = 320'h0;
	parameter [319:0] INITVAL_30 = 320'h0;
	parameter [319:0] INITVAL_31 = 320'h0;
	parameter [319:0] INITVAL_32 = 320'h0;
	parameter [319:0] INITVAL_33 = 320'h0;
	parameter [319:0] INITVAL_34 = 320'h0;
	parameter [319:0] INITVAL_35 = 320'h0;
	parameter [319:0] INITVAL_36 = 320'h0;
	parameter [319:0] INITVAL_37 = 320'h0;
	parameter [319:0] INITVAL_38 = 320'h0;
	parameter [319:0] INITVAL_39 = 320'h0;
	parameter [319:0] INITVAL_3A = 320'h0;
	parameter [319:0] INITVAL_3B = 320'h0;
	parameter [319:0] INITVAL_3C = 320'h0;
	parameter [319:0] INITVAL_3D = 320'h0;
	parameter [319:0] INITVAL_3E = 320'h0;
	parameter [319:0] INITVAL_3F = 320'h0;

	reg [17:0] mem [0:1023];

	function [319:0] initval(input integer row);
		case (row)
			0: initval = INITVAL_00;
			1: initval = INITVAL_01;
			2: initval = INITVAL_02;
			3: initval = INITVAL_03;
			4: initval = INITVAL_04;
			5: initval = INITVAL_05;
			6: initval = INITVAL_06;
			7: initval = INITVAL_07;
			8: initval = INITVAL_08;
			9: initval = INITVAL_09;
			10: initval = INITVAL_0A;
			11: initval = INITVAL_0B;
			12: initval = INITVAL_0C;
			13: initval = INITVAL_0D;
			14: initval = INITVAL_0E;
			15: initval = INITVAL_0F;
			16: initval = INITVAL_10;
			17: initval = INITVAL_11;
			18: initval = INITVAL_12;
			19: initval = INITVAL_13;
			20: initval = INITVAL_14;
			21: initval = INITVAL_15;
			22: initval = INITVAL_16;
			23: initval = INITVAL_17;
			24: initval = INITVAL_18;
			25: initval = INITVAL_19;
			26: initval = INITVAL_1A;
			27: initval = INITVAL_1B;
			28: initval = INITVAL_1C;
			29: initval = INITVAL_1D;
			30: initval = INITVAL_1E;
			31: initval = INITVAL_1F;
			32: initval = INITVAL_20;
			33: initval = INITVAL_21;
			34: initval = INITVAL_22;
			35: initval = INITVAL_23;
			36: initval = INITVAL_24;
			37: initval = INITVAL_25;
			38: initval = INITVAL_26;
			39: initval = INITVAL_27;
			40: initval = INITVAL_28;
			41: initval = INITVAL_29;
			42: initval = INITVAL_2A;
			43: initval = INITVAL_2B;
			44: initval = INITVAL_2C;
			45: initval = INITVAL_2D;
			46: initval = INITVAL_2E;
			47: initval = INITVAL_2F;
			48: initval = INITVAL_30;
			49: initval = INITVAL_31;
			50: initval = INITVAL_32;
			51: initval = INITVAL_33;
			52: initval = INITVAL_34;
			53: initval = INITVAL_35;
			54: initval = INITVAL_36;
			55: initval = INITVAL_37;
			56: initval = INITVAL_38;
			57: initval = INITVAL_39;
			58: initval = INITVAL_3A;
			59: initval = INITVAL_3B;
			60: initval = INITVAL_3C;
			61: initval = INITVAL_3D;
			62: initval = INITVAL_3E;
			63: initval = INITVAL_3F;
			default: initval = 320'h0;
		endcase
	endfunction

	integer row, word;
	initial
		for (row = 0; row < 64; row = row + 1)
			for (word = 0; word < 16; word = word + 1)
				mem[row * 16 + word] = initval(row) >> (20 * word);

	// "0b101" -> 3'b101
	function [2:0] decode(input [39:0] text);
		decode = {text[23:16] == "1", text[15:8] == "1", text[7:0] == "1"};
	endfunction

	// the storage bit of data bit `bit` in the narrow (1, 2, 4 bit) modes: 16 data bits a word
	function integer narrow_bit(input integer bit_index);
		narrow_bit = (bit_index / 16) * 18 + ((bit_index % 16) < 8 ? bit_index % 16 : bit_index % 16 + 1);
	endfunction

	function [17:0] read(input integer width, input [13:0] ad);
		integer i, k;
		begin
			read = 18'h0;
			if (width == 18) read = mem[ad[13:4]];
			else if (width == 9) read[8:0] = ad[3] ? mem[ad[13:4]][17:9] : mem[ad[13:4]][8:0];
			else for (i = 0; i < width; i = i + 1) begin
				k = narrow_bit((ad >> (width == 4 ? 2 : width == 2 ? 1 : 0)) * width + i);
				read[i] = mem[k / 18][k % 18];
			end
		end
	endfunction

	task write(input integer width, input [13:0] ad, input [17:0] di);
		integer i, k;
		begin
			if (width == 18) begin
				if (ad[0]) mem[ad[13:4]][8:0] = di[8:0];
				if (ad[1]) mem[ad[13:4]][17:9] = di[17:9];
			end else if (width == 9) begin
				if (ad[3]) mem[ad[13:4]][17:9] = di[8:0];
				else mem[ad[13:4]][8:0] = di[8:0];
			end else for (i = 0; i < width; i = i + 1) begin
				k = narrow_bit((ad >> (width == 4 ? 2 : width == 2 ? 1 : 0)) * width + i);
				mem[k / 18][k % 18] = di[i];
			end
		end
	endtask

	// port A
	wire [17:0] di_A = {DIA17, DIA16, DIA15, DIA14, DIA13, DIA12, DIA11, DIA10, DIA9, DIA8, DIA7, DIA6, DIA5, DIA4, DIA3, DIA2, DIA1, DIA0};
	wire [13:0] ad_A = {ADA13, ADA12, ADA11, ADA10, ADA9, ADA8, ADA7, ADA6, ADA5, ADA4, ADA3, ADA2, ADA1, ADA0};
	wire clk_A = (CLKAMUX == "INV") ? ~CLKA : CLKA;
	wire selected_A = {CSA2, CSA1, CSA0} == decode(CSDECODE_A);
	reg [17:0] latch_A = 18'h0, out_A = 18'h0;
	wire [17:0] do_A = (REGMODE_A == "OUTREG") ? out_A : latch_A;
	assign {DOA17, DOA16, DOA15, DOA14, DOA13, DOA12, DOA11, DOA10, DOA9, DOA8, DOA7, DOA6, DOA5, DOA4, DOA3, DOA2, DOA1, DOA0} = do_A;
	wire arst_A = RESETMODE == "ASYNC" && RSTA;
	reg [17:0] old_A;
	always @(posedge clk_A or posedge arst_A) begin
		if (RSTA) begin
			latch_A <= 18'h0;
			out_A <= 18'h0;
		end else begin
			if (OCEA) out_A <= latch_A;
			if (CEA && selected_A) begin
				old_A = read(DATA_WIDTH_A, ad_A);
				if (!WEA) latch_A <= old_A;
				else begin
					write(DATA_WIDTH_A, ad_A, di_A);
					if (WRITEMODE_A == "READBEFOREWRITE") latch_A <= old_A;
					else if (WRITEMODE_A == "WRITETHROUGH") latch_A <= read(DATA_WIDTH_A, ad_A);
				end
			end
		end
	end

	// port B
	wire [17:0] di_B = {DIB17, DIB16, DIB15, DIB14, DIB13, DIB12, DIB11, DIB10, DIB9, DIB8, DIB7, DIB6, DIB5, DIB4, DIB3, DIB2, DIB1, DIB0};
	wire [13:0] ad_B = {ADB13, ADB12, ADB11, ADB10, ADB9, ADB8, ADB7, ADB6, ADB5, ADB4, ADB3, ADB2, ADB1, ADB0};
	wire clk_B = (CLKBMUX == "INV") ? ~CLKB : CLKB;
	wire selected_B = {CSB2, CSB1, CSB0} == decode(CSDECODE_B);
	reg [17:0] latch_B = 18'h0, out_B = 18'h0;
	wire [17:0] do_B = (REGMODE_B == "OUTREG") ? out_B : latch_B;
	assign {DOB17, DOB16, DOB15, DOB14, DOB13, DOB12, DOB11, DOB10, DOB9, DOB8, DOB7, DOB6, DOB5, DOB4, DOB3, DOB2, DOB1, DOB0} = do_B;
	wire arst_B = RESETMODE == "ASYNC" && RSTB;
	reg [17:0] old_B;
	always @(posedge clk_B or posedge arst_B) begin
		if (RSTB) begin
			latch_B <= 18'h0;
			out_B <= 18'h0;
		end else begin
			if (OCEB) out_B <= latch_B;
			if (CEB && selected_B) begin
				old_B = read(DATA_WIDTH_B, ad_B);
				if (!WEB) latch_B <= old_B;
				else begin
					write(DATA_WIDTH_B, ad_B, di_B);
					if (WRITEMODE_B == "READBEFOREWRITE") latch_B <= old_B;
					else if (WRITEMODE_B == "WRITETHROUGH") latch_B <= read(DATA_WIDTH_B, ad_B);
				end
			end
		end
	end

endmodule


// The global clock buffer nextpnr inserts on a clock net (CE high: the clock passes).
module DCCA(input CLKI, input CE, output CLKO);
	assign CLKO = CLKI & CE;
endmodule
