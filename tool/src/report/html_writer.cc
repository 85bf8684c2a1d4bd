#include "report/html_writer.h"

#include "report/line_diff.h"
#include "report/svg_chart.h"

namespace kernelblaster::report {
namespace {

const char* kStyle = R"(
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:#1b1f24;background:#fff;margin:24px auto;max-width:1040px;padding:0 16px}
h1{font-size:22px;margin:0 0 4px}h2{font-size:17px;margin:28px 0 8px;border-bottom:1px solid #d8dee4;padding-bottom:4px}
.subtitle{color:#57606a;margin:0 0 16px}
table{border-collapse:collapse;margin:8px 0;font-size:13px}th,td{border:1px solid #d8dee4;padding:3px 8px;text-align:left;vertical-align:top}
th{background:#f6f8fa}td.good{background:#dafbe1}td.bad{background:#ffebe9}td.neutral{background:#f6f8fa}
figure.chart{margin:12px 0}figcaption{font-weight:600;margin-bottom:4px}
svg .axis{stroke:#57606a;stroke-width:1}svg .grid{stroke:#d8dee4;stroke-width:1}
svg .tick,svg .axis-label{font-size:11px;fill:#57606a}
svg .series path{fill:none;stroke-width:2}svg .series circle{stroke:#fff;stroke-width:1}
.s0 path{stroke:#0969da}.s0 circle{fill:#0969da}.s1 path{stroke:#bc4c00}.s1 circle{fill:#bc4c00}
.s2 path{stroke:#8250df}.s2 circle{fill:#8250df}.s3 path{stroke:#1b7c83}.s3 circle{fill:#1b7c83}
.legend .key{margin-right:14px}.legend .key:before{content:"";display:inline-block;width:10px;height:10px;margin-right:4px;vertical-align:middle}
.legend .s0:before{background:#0969da}.legend .s1:before{background:#bc4c00}.legend .s2:before{background:#8250df}.legend .s3:before{background:#1b7c83}
.strip{display:flex;flex-wrap:wrap;gap:2px;margin:6px 0}.strip span{display:inline-block;width:12px;height:18px;background:#afb8c1}
.strip span.labelled{width:auto;height:auto;padding:1px 6px;font-size:12px;color:#fff}.strip span.labelled.neutral{color:#1b1f24}.strip span.good{background:#2da44e}.strip span.bad{background:#cf222e}.strip span.neutral{background:#afb8c1}
table.diff{width:100%;table-layout:fixed;font:12px/1.35 ui-monospace,SFMono-Regular,Menlo,monospace}
table.diff td{white-space:pre-wrap;word-break:break-all;border:none;padding:0 6px}
table.diff tr.removed td.l,table.diff tr.changed td.l{background:#ffebe9}table.diff tr.added td.r,table.diff tr.changed td.r{background:#dafbe1}
)";

std::string table_html(const Table& t) {
  bool headed = false;
  for (const std::string& h : t.headers) headed = headed || !h.empty();
  std::string out = "<table>";
  if (headed) {
    out += "<thead><tr>";
    for (const std::string& h : t.headers) out += "<th>" + html_escape(h) + "</th>";
    out += "</tr></thead>";
  }
  out += "<tbody>";
  for (const auto& row : t.rows) {
    out += "<tr>";
    for (const Cell& c : row)
      out += (c.tone.empty() ? std::string("<td>") : "<td class=\"" + html_escape(c.tone) + "\">") +
             html_escape(c.text) + "</td>";
    out += "</tr>";
  }
  return out + "</tbody></table>";
}

std::string strip_html(const Strip& s) {
  std::string out = "<figure class=\"chart\"><figcaption>" + html_escape(s.title) + "</figcaption><div class=\"strip\" data-strip=\"" +
                    html_escape(s.id) + "\" data-cells=\"" + std::to_string(s.cells.size()) + "\">";
  for (const Cell& c : s.cells) {
    const std::string label = s.labelled ? html_escape(c.text.substr(0, c.text.find(':'))) : "";
    out += "<span class=\"" + html_escape(c.tone) + (s.labelled ? " labelled" : "") + "\" title=\"" +
           html_escape(c.text) + "\">" + label + "</span>";
  }
  return out + "</div></figure>";
}

std::string side_by_side_html(const SideBySide& d) {
  std::string out = "<figure class=\"chart\"><figcaption>" + html_escape(d.title) + "</figcaption><table class=\"diff\" data-diff=\"" +
                    html_escape(d.title) + "\"><thead><tr><th>" + html_escape(d.left_name) + "</th><th>" +
                    html_escape(d.right_name) + "</th></tr></thead><tbody>";
  for (const DiffRow& r : diff_lines(split_lines(d.left), split_lines(d.right))) {
    const char* kind = r.kind == DiffRow::Kind::same      ? "same"
                       : r.kind == DiffRow::Kind::removed ? "removed"
                       : r.kind == DiffRow::Kind::added   ? "added"
                                                          : "changed";
    out += std::string("<tr class=\"") + kind + "\"><td class=\"l\">" + html_escape(r.left) + "</td><td class=\"r\">" +
           html_escape(r.right) + "</td></tr>";
  }
  return out + "</tbody></table></figure>";
}

struct BlockHtml {
  std::string operator()(const Heading& h) const { return "<h2>" + html_escape(h.text) + "</h2>"; }
  std::string operator()(const Paragraph& p) const { return "<p>" + html_escape(p.text) + "</p>"; }
  std::string operator()(const Table& t) const { return table_html(t); }
  std::string operator()(const Chart& c) const { return svg_chart(c); }
  std::string operator()(const Strip& s) const { return strip_html(s); }
  std::string operator()(const SideBySide& d) const { return side_by_side_html(d); }
};

}  // namespace

std::string html_escape(const std::string& text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      default: out += c;
    }
  }
  return out;
}

std::string to_html(const Document& doc) {
  std::string out = "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
                    "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
                    // No script runs and nothing is fetched: the page is what it says.
                    "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'\">"
                    "<meta name=\"generator\" content=\"kernelblaster report\"><title>" +
                    html_escape(doc.title) + "</title><style>" + kStyle + "</style></head><body>\n";
  out += "<h1>" + html_escape(doc.title) + "</h1>";
  if (!doc.subtitle.empty()) out += "<p class=\"subtitle\">" + html_escape(doc.subtitle) + "</p>";
  out += "\n";
  for (const Block& b : doc.blocks) out += std::visit(BlockHtml{}, b) + "\n";
  return out + "</body></html>\n";
}

}  // namespace kernelblaster::report
