/* Sorting and filtering of the benchmark tables (global reports, HTML only), in plain script
   with no library. Every value sorted or filtered on is in the rows' data- attributes, written
   from the results model; nothing is computed here. Without the script, the table reads as
   rendered and its controls stay hidden. */
(function () {
  "use strict";
  var collator = new Intl.Collator(undefined, {numeric: true, sensitivity: "base"});

  function setUp(tools) {
    var table = document.querySelector(tools.getAttribute("data-table"));
    if (!table) { return; }
    var body = table.tBodies[0];
    var rows = Array.prototype.slice.call(body.rows);
    var headers = Array.prototype.slice.call(table.querySelectorAll("th[data-sort]"));
    var position = new Map(rows.map(function (row, i) { return [row, i]; }));

    /* A row's value for a key: a number, a string, or null (missing: always last). */
    function value(row, key, numeric) {
      var text = row.getAttribute("data-" + key);
      if (text === null || text === "") { return null; }
      return numeric ? Number(text) : text;
    }

    function sortBy(header, descending) {
      var key = header.getAttribute("data-sort");
      var numeric = header.getAttribute("data-sort-type") !== "text";
      var sorted = rows.slice().sort(function (a, b) {
        var x = value(a, key, numeric), y = value(b, key, numeric);
        var order;
        if (x === null || y === null) {
          order = (x === null) - (y === null);
        } else {
          order = numeric ? x - y : collator.compare(x, y);
          if (descending) { order = -order; }
        }
        return order || position.get(a) - position.get(b);
      });
      sorted.forEach(function (row) { body.appendChild(row); });
      headers.forEach(function (other) { other.removeAttribute("aria-sort"); });
      header.setAttribute("aria-sort", descending ? "descending" : "ascending");
    }

    headers.forEach(function (header) {
      var button = document.createElement("button");
      button.type = "button";
      while (header.firstChild) { button.appendChild(header.firstChild); }
      header.appendChild(button);
      button.addEventListener("click", function () {
        var first = header.getAttribute("data-sort-first") || "ascending";
        var now = header.getAttribute("aria-sort");
        sortBy(header, now ? now === "ascending" : first === "descending");
      });
    });

    var call = tools.elements.call, name = tools.elements.name;
    var shown = tools.querySelector(".shown");

    function filter() {
      var wanted = call.value, text = name.value.trim().toLowerCase(), count = 0;
      rows.forEach(function (row) {
        var calls = (row.getAttribute("data-call") || "").split(" ");
        var match = (!wanted || calls.indexOf(wanted) >= 0) &&
          (!text || (row.getAttribute("data-name") || "").toLowerCase().indexOf(text) >= 0);
        row.hidden = !match;
        count += match;
      });
      shown.textContent = count === rows.length ? "All " + rows.length + " shown."
        : count + " of " + rows.length + " shown.";
    }

    tools.addEventListener("submit", function (event) { event.preventDefault(); });
    call.addEventListener("change", filter);
    name.addEventListener("input", filter);
    tools.hidden = false;
    filter();
  }

  document.querySelectorAll("form.table-tools[data-table]").forEach(setUp);
})();
