// libsodium, with the few signatures Swift reads awkwardly restated over void pointers.
#pragma once
#include <sodium.h>
