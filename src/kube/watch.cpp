#include "dgd/kube/watch.h"

namespace dgd::kube {

std::string WatchEvent::resource_version() const {
  if (!object.is_object()) return "";
  auto m = object.find("metadata");
  if (m == object.end() || !m->is_object()) return "";
  auto rv = m->find("resourceVersion");
  return rv != m->end() && rv->is_string() ? rv->get<std::string>() : "";
}

Error WatchEvent::status_error(std::string request) const {
  int code = 0;
  if (object.is_object() && object.contains("code") && object["code"].is_number_integer()) {
    code = object["code"].get<int>();
  }
  return error_from_response(code, object.dump(), "", std::move(request));
}

Result<WatchEvent> decode_watch_event(std::string_view frame) {
  auto j = nlohmann::json::parse(frame, nullptr, /*allow_exceptions=*/false);
  auto fail = [&](std::string why) {
    Error e;
    e.kind = ErrorKind::kDecode;
    e.message = "watch frame " + why + ": " + std::string(frame.substr(0, 200));
    return e;
  };
  if (j.is_discarded()) return fail("is not JSON");
  if (!j.is_object()) return fail("is not an object");
  auto t = j.find("type");
  auto o = j.find("object");
  if (t == j.end() || !t->is_string()) return fail("has no type");
  if (o == j.end() || !o->is_object()) return fail("has no object");
  WatchEvent ev;
  const auto& type = t->get_ref<const std::string&>();
  if (type == "ADDED") ev.type = WatchEventType::kAdded;
  else if (type == "MODIFIED") ev.type = WatchEventType::kModified;
  else if (type == "DELETED") ev.type = WatchEventType::kDeleted;
  else if (type == "BOOKMARK") ev.type = WatchEventType::kBookmark;
  else if (type == "ERROR") ev.type = WatchEventType::kError;
  else return fail("has unknown type " + type);
  ev.object = std::move(*o);
  return ev;
}

}  // namespace dgd::kube
