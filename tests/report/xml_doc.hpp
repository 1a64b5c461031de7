// Parsing report output back in tests: libxml2's XML parser (strict, for SVG) and its HTML parser
// (lenient, for the HTML report), queried with XPath. SVG elements are under the prefix "s".
#pragma once

#include <libxml/HTMLparser.h>
#include <libxml/parser.h>
#include <libxml/xpath.h>
#include <libxml/xpathInternals.h>

#include <memory>
#include <string>
#include <vector>

namespace jouleprof::testing {

class XmlDoc {
 public:
  // nullptr when `text` is not well-formed XML.
  static std::unique_ptr<XmlDoc> parse_xml(const std::string& text) {
    xmlDocPtr doc = xmlReadMemory(text.data(), static_cast<int>(text.size()), "report.svg", "UTF-8",
                                  XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING);
    return doc ? std::unique_ptr<XmlDoc>(new XmlDoc(doc)) : nullptr;
  }
  static std::unique_ptr<XmlDoc> parse_html(const std::string& text) {
    htmlDocPtr doc =
        htmlReadMemory(text.data(), static_cast<int>(text.size()), "report.html", "UTF-8",
                       HTML_PARSE_NONET | HTML_PARSE_NOERROR | HTML_PARSE_NOWARNING);
    return doc ? std::unique_ptr<XmlDoc>(new XmlDoc(doc)) : nullptr;
  }
  ~XmlDoc() { xmlFreeDoc(doc_); }
  XmlDoc(const XmlDoc&) = delete;
  XmlDoc& operator=(const XmlDoc&) = delete;

  std::vector<xmlNodePtr> select(const std::string& xpath) const {
    std::vector<xmlNodePtr> nodes;
    xmlXPathContextPtr ctx = xmlXPathNewContext(doc_);
    xmlXPathRegisterNs(ctx, xc("s"), xc("http://www.w3.org/2000/svg"));
    xmlXPathObjectPtr result = xmlXPathEvalExpression(xc(xpath.c_str()), ctx);
    if (result != nullptr && result->nodesetval != nullptr) {
      for (int i = 0; i < result->nodesetval->nodeNr; ++i)
        nodes.push_back(result->nodesetval->nodeTab[i]);
    }
    xmlXPathFreeObject(result);
    xmlXPathFreeContext(ctx);
    return nodes;
  }

  static std::string attr(xmlNodePtr node, const char* name) {
    xmlChar* v = xmlGetProp(node, xc(name));
    std::string out = v ? reinterpret_cast<const char*>(v) : "";
    xmlFree(v);
    return out;
  }
  static std::string text(xmlNodePtr node) {
    xmlChar* v = xmlNodeGetContent(node);
    std::string out = v ? reinterpret_cast<const char*>(v) : "";
    xmlFree(v);
    return out;
  }

 private:
  static const xmlChar* xc(const char* s) { return reinterpret_cast<const xmlChar*>(s); }
  explicit XmlDoc(xmlDocPtr doc) : doc_(doc) {}
  xmlDocPtr doc_;
};

}  // namespace jouleprof::testing
