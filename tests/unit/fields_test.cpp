#include "gpuadvise/fields.hpp"

#include <catch2/catch.hpp>
#include <set>

using namespace gpuadvise;

TEST_CASE("the field table is in enum order and every name is unique") {
    std::set<std::string> flags, keys;
    std::size_t i = 0;
    for (const FieldSpec& s : field_specs()) {
        INFO(s.flag);
        CHECK(static_cast<std::size_t>(s.field) == i++);
        CHECK(&spec(s.field) == &s);
        CHECK(s.flag.substr(0, 2) == "--");
        CHECK(flags.insert(std::string(s.flag)).second);
        if (!s.short_flag.empty()) CHECK(flags.insert(std::string(s.short_flag)).second);
        if (s.kind == FieldKind::Toggle) CHECK(flags.insert(s.negative_flag()).second);
        CHECK(keys.insert(std::string(s.key)).second);
        CHECK_FALSE(s.help.empty());
        CHECK(s.group != 0);
        // Keys are the flags without dashes, underscores for dashes.
        std::string key(s.flag.substr(2));
        for (char& c : key)
            if (c == '-') c = '_';
        if (s.field != Field::CloudPrice) CHECK(key == s.key);
    }
    CHECK(i == kFieldCount);
}

TEST_CASE("settings derive their variable from their key") {
    CHECK(spec(Field::RankBy).env_name() == "GPUADVISE_RANK_BY");
    CHECK(spec(Field::KwhPrice).setting);
    CHECK(spec(Field::CloudPrice).env_name() == "GPUADVISE_CLOUD_PRICE_PER_GPU_HOUR");
    CHECK_FALSE(spec(Field::Batch).setting);
}

TEST_CASE("help text carries choices and the default with its source") {
    CHECK_THAT(spec(Field::Method).help_text(),
               Catch::Contains("inference | lora | qlora | full") &&
                   Catch::Contains("[default: inference]"));
    CHECK_THAT(spec(Field::KvDtype).help_text(),
               Catch::Contains("fp32"));  // every choice the parser accepts is listed
    CHECK(spec(Field::GradCkpt).negative_flag() == "--no-grad-ckpt");
}

TEST_CASE("a request keeps each value with its origin") {
    Request r;
    CHECK_FALSE(r.has(Field::Batch));
    r.set(Field::Batch, "4", "GPUADVISE_BATCH");
    REQUIRE(r.get(Field::Batch));
    CHECK(r.get(Field::Batch)->origin == "GPUADVISE_BATCH");
    r.set(Field::GradCkpt, "false", "--no-grad-ckpt");
    CHECK(r.flag(Field::GradCkpt) == false);
    CHECK_FALSE(r.flag(Field::FlashAttn));
}
