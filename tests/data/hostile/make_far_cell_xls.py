"""Write far_cell.xls: a 6 kB workbook whose one far value (row 65,536, column 16,384,
beyond what Excel writes) made the spreadsheet reader ask for 34 GB and abort.

Needs xlwt (not a dependency of rrmap): ``pip install xlwt; python make_far_cell_xls.py``.
xlwt writes the value at row 65,536, column 256 (IV65536) as an RK record; its column
field is then set to 16,383 (XFD).
"""

import struct
from pathlib import Path

import xlwt

book = xlwt.Workbook()
sheet = book.add_sheet("S")
for col, name in enumerate(["expert", "x"]):
    sheet.write(0, col, name)
sheet.write(1, 0, "E1")
sheet.write(1, 1, 1.0)
sheet.write(65535, 255, 7.25)
path = Path(__file__).with_name("far_cell.xls")
book.save(path)
data = bytearray(path.read_bytes())
at = data.find(b"\x7e\x02\x0a\x00" + struct.pack("<HH", 65535, 255))  # RK, 10 bytes
assert at > 0
data[at + 6 : at + 8] = struct.pack("<H", 16383)
path.write_bytes(bytes(data))
