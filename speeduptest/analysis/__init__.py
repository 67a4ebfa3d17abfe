"""From what was read to results: every benchmark analysed (batched where sizes allow, in
workers where it pays), the calls decided, the overall figures computed."""
