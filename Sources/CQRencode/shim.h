// libqrencode (Debian's libqrencode-dev): QR codes for the pairing link a phone scans.
#pragma once
#include <qrencode.h>
