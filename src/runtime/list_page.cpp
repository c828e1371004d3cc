#include "dgd/runtime/list_page.h"

#include "dgd/kube/watch_scan.h"

namespace dgd::runtime {

using kube::JsonScanner;

bool decode_list_page(std::string_view text, const FieldProjection& projection, ListPage& page,
                      std::string* error) {
  return decode_list_page(text, projection, nullptr, page, error);
}

bool decode_list_page(std::string_view text, const FieldProjection& projection, SharedTextPool* shared,
                      ListPage& page, std::string* error) {
  JsonScanner s(text);
  auto fail = [&](const std::string& why) {
    if (error) *error = why;
    return false;
  };
  if (s.peek() != '{') return fail(s.ok() ? "list response is not a JSON object" : s.error());
  s.begin_object();
  std::string_view key;
  while (s.next_member(key)) {
    if (JsonScanner::raw_equals(key, "metadata") && s.peek() == '{') {
      std::string_view mkey;
      s.begin_object();
      while (s.next_member(mkey)) {
        if (JsonScanner::raw_equals(mkey, "resourceVersion") && s.peek() == '"') s.string_value(page.resource_version);
        else if (JsonScanner::raw_equals(mkey, "continue") && s.peek() == '"') s.string_value(page.continue_token);
        else s.value();
      }
    } else if (JsonScanner::raw_equals(key, "items") && s.peek() == '[') {
      size_t index = 0;
      s.begin_array();
      while (s.next_element()) {
        s.peek();  // skips whitespace: the item starts here
        const size_t start = s.pos();
        if (!s.value()) break;
        std::string why;
        auto item = CachedObject::from_text(text.substr(start, s.pos() - start), projection, shared, &why);
        if (!item) return fail("items[" + std::to_string(index) + "]: " + why);
        page.items.push_back(std::move(item));
        ++index;
      }
    } else {
      s.value();
    }
  }
  if (!s.ok() || !s.at_end()) return fail(s.ok() ? "trailing data after the list" : s.error());
  return true;
}

}  // namespace dgd::runtime
