# Reviewed workflow recipes: a YAML document read into format 1 (RecipeCatalog::parse).
# Seeds: fuzz/corpus/recipe/.
veetbot_add_fuzzer(fuzz_recipe recipe_fuzzer.cpp)
