// The drivers' shared part (driver.h), under the name the host link's driver includes.
#pragma once

#include "driver.h"
