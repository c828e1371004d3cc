// decode_list_page: one page of a list response (kind *List: metadata.resourceVersion,
// metadata.continue, items) read from its JSON text straight into the cache form, as the
// watch path does with an event: no DOM of the page is built, so listing a big kind costs
// the page's text plus the compact objects, not a parsed copy of several times the text.
// Each item gives the same CachedObject as CachedObject::make(item, projection) would.
// Pure; thread-compatible.
#pragma once
#include <string>
#include <string_view>
#include <vector>

#include "dgd/runtime/store.h"

namespace dgd::runtime {

struct ListPage {
  std::string resource_version;  // metadata.resourceVersion of the list
  std::string continue_token;    // metadata.continue ("" on the last page)
  std::vector<ObjectPtr> items;
};

// Appends the page's items to `page.items` and sets its resourceVersion and continue
// token. False (with `error` saying where) if `text` is not a JSON object or an item is
// not one; `page` may then hold part of the items.
bool decode_list_page(std::string_view text, const FieldProjection& projection, ListPage& page,
                      std::string* error = nullptr);
// The same, the items sharing values through `shared` (CachedObject::from_text).
bool decode_list_page(std::string_view text, const FieldProjection& projection, SharedTextPool* shared,
                      ListPage& page, std::string* error = nullptr);

}  // namespace dgd::runtime
