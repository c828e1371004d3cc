#include "dgd/kube/watch.h"

#include <nlohmann/json.hpp>

#include "dgd/kube/watch_scan.h"

namespace dgd::kube {

nlohmann::json WatchEvent::object() const { return nlohmann::json::parse(object_text); }

std::string WatchEvent::resource_version() const {
  // As a DOM read would have it: the last "metadata" and, in it, the last
  // "resourceVersion" win; anything but a string gives "".
  JsonScanner s(object_text);
  std::string_view key;
  std::string rv;
  if (!s.begin_object()) return "";
  while (s.next_member(key)) {
    if (!JsonScanner::raw_equals(key, "metadata")) {
      s.value();
      continue;
    }
    rv.clear();
    if (s.peek() != '{') {
      s.value();
      continue;
    }
    s.begin_object();
    while (s.next_member(key)) {
      if (!JsonScanner::raw_equals(key, "resourceVersion")) s.value();
      else if (s.peek() == '"') s.string_value(rv);
      else rv.clear(), s.value();
    }
  }
  return s.ok() ? rv : "";
}

Error WatchEvent::status_error(std::string request) const {
  int code = 0;
  auto object = nlohmann::json::parse(object_text, nullptr, /*allow_exceptions=*/false);
  if (object.is_object() && object.contains("code") && object["code"].is_number_integer()) {
    code = object["code"].get<int>();
  }
  return error_from_response(code, object_text, "", std::move(request));
}

Result<WatchEvent> decode_watch_event(std::string_view frame) {
  auto fail = [&](std::string why) {
    Error e;
    e.kind = ErrorKind::kDecode;
    e.message = "watch frame " + why + ": " + std::string(frame.substr(0, 200));
    return e;
  };
  // A UTF-8 byte order mark is skipped, as nlohmann::json (and Go's decoder) do.
  if (frame.substr(0, 3) == "\xEF\xBB\xBF") frame.remove_prefix(3);
  JsonScanner s(frame);
  if (s.peek() != '{') {
    s.value();  // not an object: say so only if it is JSON at all
    return fail(s.ok() && s.at_end() ? "is not an object" : "is not JSON");
  }
  s.begin_object();
  std::string_view key;
  std::string type;
  bool has_type = false, type_is_string = false;
  std::string_view object;
  bool object_is_object = false;
  // The last of duplicate keys wins, as a DOM parse would have it.
  while (s.next_member(key)) {
    if (JsonScanner::raw_equals(key, "type")) {
      has_type = true;
      type_is_string = s.peek() == '"';
      if (type_is_string) s.string_value(type);
      else s.value();
    } else if (JsonScanner::raw_equals(key, "object")) {
      object_is_object = s.peek() == '{';
      size_t start = s.pos();
      s.value();
      object = frame.substr(start, s.pos() - start);
    } else {
      s.value();
    }
  }
  if (!s.ok() || !s.at_end()) return fail("is not JSON");
  if (!has_type || !type_is_string) return fail("has no type");
  if (object.empty() || !object_is_object) return fail("has no object");
  WatchEvent ev;
  if (type == "ADDED") ev.type = WatchEventType::kAdded;
  else if (type == "MODIFIED") ev.type = WatchEventType::kModified;
  else if (type == "DELETED") ev.type = WatchEventType::kDeleted;
  else if (type == "BOOKMARK") ev.type = WatchEventType::kBookmark;
  else if (type == "ERROR") ev.type = WatchEventType::kError;
  else return fail("has unknown type " + type);
  ev.object_text.assign(object);
  return ev;
}

}  // namespace dgd::kube
