// The one reader of a JSON document's fields (profile.json, FECoM records, model and kernel files,
// the C API's options, the other formats): a required or optional field of a type, an array, an
// object, a name read as an enum, each returned as a Result whose error names the document, the
// field's path and what is wrong, with the value —
//   run.json: field 'series[3].channel.kind' unknown value 'volts'
//   jp_monitor_start options: field 'interval_ms' is not a positive number (-5)
// Paths are passed as text or as a function that spells them, called only when an error needs
// the path, so that reading a large profile builds no strings on the way.
#pragma once

#include <concepts>
#include <cstdint>
#include <initializer_list>
#include <limits>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>

#include "core/json_brief.hpp"
#include "jouleprof/result.hpp"

namespace jouleprof {

// A field's path: text, or a function returning it.
template <typename W>
std::string spell_path(const W& where) {
  if constexpr (std::invocable<const W&>) {
    return where();
  } else {
    return std::string(where);
  }
}

// Whether v is a whole number that T holds. nlohmann converts a float to an integer type with a
// plain cast, undefined beyond its range (1e41 as time_ns, found by fuzzing).
template <typename T, typename Json>
bool json_holds_integer(const Json& v) {
  using Limits = std::numeric_limits<T>;
  if (v.is_number_unsigned()) {
    return v.template get<std::uint64_t>() <= static_cast<std::uint64_t>(Limits::max());
  }
  if (!v.is_number_integer()) return false;
  const auto x = v.template get<std::int64_t>();
  return x >= static_cast<std::int64_t>(Limits::min()) &&
         (x < 0 || static_cast<std::uint64_t>(x) <= static_cast<std::uint64_t>(Limits::max()));
}

// "<origin>: field '<field>' <problem>", the wording of every JSON field error.
Error json_field_error(std::string_view origin, std::string_view field, std::string_view problem);

// A number as the shortest text that reads back to it; integers exactly.
std::string json_number_text(const nlohmann::json& v);

// Json: nlohmann::json. (Model files keep their order by noting it while they parse, not with
// nlohmann::ordered_json, whose linear key search made large files quadratic to read.)
template <typename Json>
class BasicJsonFields {
 public:
  using json = Json;

  // `origin` names the document in errors (a path, "jp_attribute options"); it must outlive this.
  constexpr explicit BasicJsonFields(std::string_view origin) : origin_(origin) {}

  std::string_view origin() const { return origin_; }

  // "<origin>: field '<field>' <problem>".
  Error error(std::string_view field, std::string_view problem) const {
    return json_field_error(origin_, field, problem);
  }
  template <typename W>
  Error error_at(const W& where, std::string_view problem) const {
    return error(spell_path(where), problem);
  }
  // "<origin>: field '<where>' <problem> (<v, briefly>)": what is wrong with a value.
  template <typename W>
  Error bad_value(const W& where, const json& v, std::string_view problem) const {
    return error_at(where, std::string(problem) + " (" + json_brief(v) + ")");
  }

  // v, the value at `where`, as T. Integers must be whole and in T's range, numbers numbers,
  // strings strings, booleans true or false; other types as nlohmann reads them.
  template <typename T, typename W>
  Result<T> value(const json& v, const W& where) const {
    if constexpr (std::is_same_v<T, bool>) {
      if (!v.is_boolean()) return bad_value(where, v, "is not true or false");
      return v.template get<bool>();
    } else if constexpr (std::is_integral_v<T>) {
      if (!json_holds_integer<T>(v)) return bad_value(where, v, "is not a whole number in range");
      return v.template get<T>();
    } else if constexpr (std::is_floating_point_v<T>) {
      // nlohmann would read true as 1.
      if (!v.is_number()) return bad_value(where, v, "is not a number");
      return v.template get<T>();
    } else if constexpr (std::is_same_v<T, std::string>) {
      if (!v.is_string()) return bad_value(where, v, "is not a string");
      return v.template get<std::string>();
    } else {
      // nlohmann reports a value of another type (or a container holding one) by throwing.
      try {
        return v.template get<T>();
      } catch (const typename json::exception&) {
        return bad_value(where, v, "has the wrong type");
      }
    }
  }

  // The same, and `holds(value)` must be true; `problem` says what is wrong when it is not
  // ("is not a positive number").
  template <typename T, typename W, typename Holds>
  Result<T> value(const json& v, const W& where, Holds holds, std::string_view problem) const {
    JP_TRY(T x, value<T>(v, where));
    if (!holds(std::as_const(x))) return bad_value(where, v, problem);
    return x;
  }

  // v, which must be an array (an object).
  template <typename W>
  Result<const json*> array(const json& v, const W& where) const {
    if (!v.is_array()) return bad_value(where, v, "is not an array");
    return &v;
  }
  template <typename W>
  Result<const json*> object(const json& v, const W& where) const {
    if (!v.is_object()) return bad_value(where, v, "is not an object");
    return &v;
  }

  // A number or a string as text (settings, which the code they configure parses).
  template <typename W>
  Result<std::string> text(const json& v, const W& where) const {
    if (v.is_string()) return v.template get<std::string>();
    if (v.is_number()) return json_number_text(v);
    return bad_value(where, v, "is not a number or a string");
  }

  // Every key of the object v is one of `known`, so that a misspelt key is an error rather than
  // ignored.
  template <typename W>
  Status known_keys(const json& v, const W& where,
                    std::initializer_list<std::string_view> known) const {
    JP_TRY(const json* o, object(v, where));
    for (const auto& item : o->items()) {
      bool found = false;
      for (std::string_view k : known) found = found || k == item.key();
      if (found) continue;
      std::string list;
      for (std::string_view k : known) list += (list.empty() ? "" : ", ") + std::string(k);
      return error(child(where, item.key()), "is unknown (known: " + list + ")");
    }
    return Status::Ok();
  }

  // j[key]; an error when j is not an object or has no such key.
  template <typename W>
  Result<const json*> member(const json& j, std::string_view key, const W& where) const {
    JP_TRY(const json* o, object(j, where));
    const auto it = o->find(key);
    if (it == o->end()) return error(child(where, key), "missing");
    return &*it;
  }

  // j[key], or nullptr when j is not an object, has no such key or it is null.
  static const json* find(const json& j, std::string_view key) {
    if (!j.is_object()) return nullptr;
    const auto it = j.find(key);
    return it == j.end() || it->is_null() ? nullptr : &*it;
  }

  // j[key] as T (see value()).
  template <typename T, typename W>
  Result<T> get(const json& j, std::string_view key, const W& where) const {
    JP_TRY(const json* v, member(j, key, where));
    return value<T>(*v, [&] { return child(where, key); });
  }
  template <typename T, typename W, typename Holds>
  Result<T> get(const json& j, std::string_view key, const W& where, Holds holds,
                std::string_view problem) const {
    JP_TRY(const json* v, member(j, key, where));
    return value<T>(
        *v, [&] { return child(where, key); }, holds, problem);
  }

  // j[key] as T, or nullopt when find() finds nothing.
  template <typename T, typename W>
  Result<std::optional<T>> optional(const json& j, std::string_view key, const W& where) const {
    const json* v = find(j, key);
    if (v == nullptr) return std::optional<T>();
    JP_TRY(T x, value<T>(*v, [&] { return child(where, key); }));
    return std::optional<T>(std::move(x));
  }
  template <typename T, typename W, typename Holds>
  Result<std::optional<T>> optional(const json& j, std::string_view key, const W& where,
                                    Holds holds, std::string_view problem) const {
    const json* v = find(j, key);
    if (v == nullptr) return std::optional<T>();
    JP_TRY(T x, value<T>(
                    *v, [&] { return child(where, key); }, holds, problem));
    return std::optional<T>(std::move(x));
  }

  // j[key] as T, or `fallback` when find() finds nothing.
  template <typename T, typename W>
  Result<T> get_or(const json& j, std::string_view key, const W& where, T fallback) const {
    const json* v = find(j, key);
    if (v == nullptr) return fallback;
    return value<T>(*v, [&] { return child(where, key); });
  }

  // j[key], which must be an array (an object).
  template <typename W>
  Result<const json*> array(const json& j, std::string_view key, const W& where) const {
    JP_TRY(const json* v, member(j, key, where));
    return array(*v, [&] { return child(where, key); });
  }
  template <typename W>
  Result<const json*> object(const json& j, std::string_view key, const W& where) const {
    JP_TRY(const json* v, member(j, key, where));
    return object(*v, [&] { return child(where, key); });
  }

  // j[key], a string that `parse` (a from_string: text → std::optional<Enum> or Result<Enum>)
  // knows; `known`, when given, lists the names in the error.
  template <typename Enum, typename Parse, typename W>
  Result<Enum> named(const json& j, std::string_view key, const W& where, Parse parse,
                     std::string_view known = {}) const {
    JP_TRY(const std::string name, get<std::string>(j, key, where));
    const auto value = parse(name);
    if (value) return Enum(*value);
    std::string problem = "unknown value '" + name + "'";
    if (!known.empty()) problem += " (known: " + std::string(known) + ")";
    return error(child(where, key), problem);
  }

  // `where`.`key`; "" is the document itself, so its fields are named by key alone.
  template <typename W>
  static std::string child(const W& where, std::string_view key) {
    std::string path = spell_path(where);
    if (!path.empty()) path += '.';
    path += key;
    return path;
  }

 private:
  std::string_view origin_;
};

using JsonFields = BasicJsonFields<nlohmann::json>;

}  // namespace jouleprof
