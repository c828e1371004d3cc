// kube-sim: the string formats kube-openapi's strfmt.Default registry validates for CRD
// schemas (the formats apiextensions keeps in 1.32: date-time, date, duration, byte, uuid*,
// ipv4, ipv6, cidr, mac, hostname, email, uri, bsonobjectid, isbn*, creditcard, ssn, hexcolor,
// rgbcolor, password), each checked as strfmt checks it.
#pragma once

#include <string>

namespace kubesim::crd {

// True when strfmt.Default knows `format` (its normalized name, without '-').
bool format_known(const std::string& format);
// True when `value` is valid for the known `format`.
bool format_valid(const std::string& format, const std::string& value);

}  // namespace kubesim::crd
