// Made by scripts/confusables.js from test/fixtures/confusables-ascii.txt (Unicode confusables.txt 17.0.0); do not edit.
/**
 * Characters past ASCII whose prototype in Unicode's confusables.txt (UTS #39 §4) is ASCII letters and
 * digits, NFKC's own (fullwidth, mathematical letters) left out: each character written as an escape,
 * then its prototype (`\u{430}a` is Cyrillic а, read as `a`). 650 characters.
 */
export const CONFUSABLE_ASCII =
  '\u{a75a}2\u{1a7}2\u{3e8}2\u{a644}2\u{14bf}2\u{a6ef}2\u{1d206}3\u{969}3\u{ae9}3\u{a7ab}3\u{21c}3\u{1b7}3' +
  '\u{a76a}3\u{2c9c}3\u{2cc4}3\u{2ccc}3\u{417}3\u{4e0}3\u{16f3b}3\u{118ca}3\u{13ce}4\u{118af}4\u{1bc}5\u{118bb}5' +
  '\u{2cd3}6\u{2cd2}6\u{3ec}6\u{2cdc}6\u{431}6\u{13ee}6\u{118d5}6\u{1d212}7\u{104d2}7\u{118c6}7\u{b03}8\u{9ea}8' +
  '\u{a6a}8\u{1e8cb}8\u{223}8\u{222}8\u{1031a}8\u{a67}9\u{b68}9\u{9ed}9\u{d6d}9\u{a76e}9\u{2ccb}9\u{2cca}9' +
  '\u{118cc}9\u{118ac}9\u{118d6}9\u{237a}a\u{251}a\u{3b1}a\u{1d6c2}a\u{1d6fc}a\u{1d736}a\u{1d770}a\u{1d7aa}a\u{430}a' +
  '\u{391}A\u{1d6a8}A\u{1d6e2}A\u{1d71c}A\u{1d756}A\u{1d790}A\u{410}A\u{13aa}A\u{15c5}A\u{a4ee}A\u{16f40}A\u{102a0}A' +
  '\u{a733}aa\u{a732}AA\u{e6}ae\u{4d5}ae\u{c6}AE\u{4d4}AE\u{a735}ao\u{a734}AO\u{1f707}AR\u{a737}au\u{a736}AU\u{a739}av' +
  '\u{a73b}av\u{a738}AV\u{a73a}AV\u{a73d}ay\u{a73c}AY\u{184}b\u{42c}b\u{13cf}b\u{1472}b\u{15af}b\u{16eb6}b\u{a7b4}B' +
  '\u{392}B\u{1d6a9}B\u{1d6e3}B\u{1d71d}B\u{1d757}B\u{1d791}B\u{2c82}B\u{412}B\u{13f4}B\u{15f7}B\u{a4d0}B\u{10282}B' +
  '\u{102a1}B\u{10301}B\u{42b}bl\u{1d04}c\u{3f2}c\u{2ca5}c\u{441}c\u{1004}c\u{105a}c\u{abaf}c\u{1043d}c\u{1f74c}C' +
  '\u{118e9}C\u{118f2}C\u{3f9}C\u{2ca4}C\u{421}C\u{13df}C\u{a4da}C\u{102a2}C\u{10302}C\u{10415}C\u{1051c}C\u{501}d' +
  '\u{13e7}d\u{146f}d\u{a4d2}d\u{13a0}D\u{15de}D\u{15ea}D\u{a4d3}D\u{2a3}dz\u{212e}e\u{ab32}e\u{435}e\u{4bd}e' +
  '\u{22ff}E\u{395}E\u{1d6ac}E\u{1d6e6}E\u{1d720}E\u{1d75a}E\u{1d794}E\u{415}E\u{2d39}E\u{13ac}E\u{a4f0}E\u{118a6}E' +
  '\u{118ae}E\u{10286}E\u{ab35}f\u{a799}f\u{192}f\u{1e9d}f\u{584}f\u{1d213}F\u{a798}F\u{3dc}F\u{1d7ca}F\u{15b4}F' +
  '\u{a4dd}F\u{118c2}F\u{118a2}F\u{10287}F\u{102a5}F\u{10525}F\u{261}g\u{1d83}g\u{18d}g\u{581}g\u{50c}G\u{13c0}G' +
  '\u{13f3}G\u{a4d6}G\u{4bb}h\u{570}h\u{13c2}h\u{397}H\u{1d6ae}H\u{1d6e8}H\u{1d722}H\u{1d75c}H\u{1d796}H\u{2c8e}H' +
  '\u{41d}H\u{13bb}H\u{157c}H\u{a4e7}H\u{102cf}H\u{2db}i\u{2373}i\u{131}i\u{1d6a4}i\u{26a}i\u{269}i\u{3b9}i' +
  '\u{1fbe}i\u{37a}i\u{1d6ca}i\u{1d704}i\u{1d73e}i\u{1d778}i\u{1d7b2}i\u{2c93}i\u{456}i\u{a647}i\u{582}i\u{ab75}i' +
  '\u{13a5}i\u{118c3}i\u{3f3}j\u{458}j\u{a7b2}J\u{37f}J\u{408}J\u{13ab}J\u{148d}J\u{a4d9}J\u{39a}K\u{1d6b1}K' +
  '\u{1d6eb}K\u{1d725}K\u{1d75f}K\u{1d799}K\u{2c94}K\u{41a}K\u{13e6}K\u{16d5}K\u{a4d7}K\u{10518}K\u{5c0}l\u{2223}l' +
  '\u{23fd}l\u{ffe8}l\u{661}l\u{6f1}l\u{10320}l\u{1e8c7}l\u{196}l\u{1c0}l\u{399}l\u{1d6b0}l\u{1d6ea}l\u{1d724}l' +
  '\u{1d75e}l\u{1d798}l\u{2c92}l\u{406}l\u{4cf}l\u{4c0}l\u{5d5}l\u{5df}l\u{627}l\u{1ee00}l\u{1ee80}l\u{fe8e}l' +
  '\u{fe8d}l\u{7ca}l\u{2d4f}l\u{16c1}l\u{a4f2}l\u{16f28}l\u{1028a}l\u{10309}l\u{11dda}l\u{11de1}l\u{16eaa}l\u{1d22a}L' +
  '\u{2cd0}L\u{13de}L\u{14aa}L\u{a4e1}L\u{16f16}L\u{118a3}L\u{118b2}L\u{1041b}L\u{10526}L\u{2016}ll\u{2225}ll\u{1c1}ll' +
  '\u{5f0}ll\u{42e}lO\u{2aa}ls\u{20b6}lt\u{2ab}lz\u{39c}M\u{1d6b3}M\u{1d6ed}M\u{1d727}M\u{1d761}M\u{1d79b}M\u{3fa}M' +
  '\u{2c98}M\u{41c}M\u{13b7}M\u{15f0}M\u{16d6}M\u{a4df}M\u{102b0}M\u{10311}M\u{1f76b}MB\u{578}n\u{57c}n\u{39d}N' +
  '\u{1d6b4}N\u{1d6ee}N\u{1d728}N\u{1d762}N\u{1d79c}N\u{2c9a}N\u{a4e0}N\u{10513}N\u{c02}o\u{c82}o\u{d02}o\u{d82}o' +
  '\u{966}o\u{9e6}o\u{a66}o\u{ae6}o\u{b66}o\u{be6}o\u{c66}o\u{d66}o\u{e50}o\u{ed0}o\u{1040}o\u{17e0}o' +
  '\u{114d0}o\u{665}o\u{6f5}o\u{1d0f}o\u{1d11}o\u{ab3d}o\u{3bf}o\u{1d6d0}o\u{1d70a}o\u{1d744}o\u{1d77e}o\u{1d7b8}o' +
  '\u{3c3}o\u{1d6d4}o\u{1d70e}o\u{1d748}o\u{1d782}o\u{1d7bc}o\u{2c9f}o\u{3ed}o\u{43e}o\u{10ff}o\u{585}o\u{5e1}o' +
  '\u{647}o\u{1ee24}o\u{1ee64}o\u{1ee84}o\u{feeb}o\u{feec}o\u{feea}o\u{fee9}o\u{6be}o\u{fbac}o\u{fbad}o\u{fbab}o' +
  '\u{fbaa}o\u{6c1}o\u{fba8}o\u{fba9}o\u{fba7}o\u{fba6}o\u{6d5}o\u{d20}o\u{101d}o\u{104ea}o\u{118c8}o\u{118d7}o' +
  '\u{1042c}o\u{7c0}O\u{ce6}O\u{3007}O\u{118e0}O\u{39f}O\u{1d6b6}O\u{1d6f0}O\u{1d72a}O\u{1d764}O\u{1d79e}O\u{2c9e}O' +
  '\u{41e}O\u{555}O\u{2d54}O\u{12d0}O\u{b20}O\u{104c2}O\u{a4f3}O\u{118b5}O\u{10292}O\u{102ab}O\u{10404}O\u{10516}O' +
  '\u{11de0}O\u{153}oe\u{152}OE\u{221e}oo\u{a74f}oo\u{a699}oo\u{a74e}OO\u{a698}OO\u{2374}p\u{fe}p\u{1bf}p\u{3c1}p' +
  '\u{3f1}p\u{1d6d2}p\u{1d6e0}p\u{1d70c}p\u{1d71a}p\u{1d746}p\u{1d754}p\u{1d780}p\u{1d78e}p\u{1d7ba}p\u{1d7c8}p\u{3f8}p' +
  '\u{2ca3}p\u{2ccf}p\u{440}p\u{3a1}P\u{1d6b8}P\u{1d6f2}P\u{1d72c}P\u{1d766}P\u{1d7a0}P\u{2ca2}P\u{2cce}P\u{420}P' +
  '\u{13e2}P\u{146d}P\u{a4d1}P\u{10295}P\u{51b}q\u{563}q\u{566}q\u{2d55}Q\u{1f700}QE\u{ab47}r\u{ab48}r\u{1d26}r' +
  '\u{2c85}r\u{433}r\u{ab81}r\u{1d216}R\u{1a6}R\u{13a1}R\u{13d2}R\u{104b4}R\u{1587}R\u{a4e3}R\u{16f35}R\u{118e3}rn' +
  '\u{11700}rn\u{a731}s\u{1bd}s\u{455}s\u{d1f}s\u{abaa}s\u{118c1}s\u{10448}s\u{405}S\u{54f}S\u{13d5}S\u{13da}S' +
  '\u{a4e2}S\u{16f3a}S\u{10296}S\u{10420}S\u{1f75c}sss\u{22a4}T\u{27d9}T\u{1f768}T\u{3a4}T\u{1d6bb}T\u{1d6f5}T\u{1d72f}T' +
  '\u{1d769}T\u{1d7a3}T\u{2ca6}T\u{422}T\u{13a2}T\u{a4d4}T\u{16f0a}T\u{118bc}T\u{10297}T\u{102b1}T\u{10315}T\u{a728}T3' +
  '\u{a777}tf\u{2a6}ts\u{a79f}u\u{1d1c}u\u{ab4e}u\u{ab52}u\u{28b}u\u{3c5}u\u{1d6d6}u\u{1d710}u\u{1d74a}u\u{1d784}u' +
  '\u{1d7be}u\u{57d}u\u{104f6}u\u{118d8}u\u{222a}U\u{22c3}U\u{54d}U\u{1200}U\u{104ce}U\u{144c}U\u{a4f4}U\u{16f42}U' +
  '\u{118b8}U\u{1d6b}ue\u{ab63}uo\u{2228}v\u{22c1}v\u{1d20}v\u{3bd}v\u{1d6ce}v\u{1d708}v\u{1d742}v\u{1d77c}v\u{1d7b6}v' +
  '\u{475}v\u{5d8}v\u{11706}v\u{aba9}v\u{118c0}v\u{1d20d}V\u{667}V\u{6f7}V\u{474}V\u{2d38}V\u{13d9}V\u{142f}V' +
  '\u{a6df}V\u{a4e6}V\u{16f08}V\u{118a0}V\u{1051d}V\u{1f76c}VB\u{26f}w\u{1d21}w\u{2cbd}w\u{461}w\u{448}w\u{51d}w' +
  '\u{561}w\u{1170a}w\u{1170e}w\u{1170f}w\u{ab83}w\u{118e6}W\u{118ef}W\u{51c}W\u{13b3}W\u{13d4}W\u{a4ea}W\u{166e}x' +
  '\u{d7}x\u{292b}x\u{292c}x\u{2a2f}x\u{445}x\u{1541}x\u{157d}x\u{166d}X\u{2573}X\u{10322}X\u{118ec}X\u{a7b3}X' +
  '\u{3a7}X\u{1d6be}X\u{1d6f8}X\u{1d732}X\u{1d76c}X\u{1d7a6}X\u{2cac}X\u{425}X\u{2d5d}X\u{16b7}X\u{a4eb}X\u{10290}X' +
  '\u{102b4}X\u{10317}X\u{10527}X\u{263}y\u{1d8c}y\u{28f}y\u{1eff}y\u{ab5a}y\u{3b3}y\u{213d}y\u{1d6c4}y\u{1d6fe}y' +
  '\u{1d738}y\u{1d772}y\u{1d7ac}y\u{2ca9}y\u{443}y\u{4af}y\u{10e7}y\u{118dc}y\u{3a5}Y\u{3d2}Y\u{1d6bc}Y\u{1d6f6}Y' +
  '\u{1d730}Y\u{1d76a}Y\u{1d7a4}Y\u{2ca8}Y\u{423}Y\u{4ae}Y\u{13a9}Y\u{13bd}Y\u{a4ec}Y\u{16f43}Y\u{118a4}Y\u{102b2}Y' +
  '\u{1d22}z\u{ab93}z\u{118c4}z\u{118e5}Z\u{102f5}Z\u{396}Z\u{1d6ad}Z\u{1d6e7}Z\u{1d721}Z\u{1d75b}Z\u{1d795}Z\u{13c3}Z' +
  '\u{a4dc}Z\u{118a9}Z';
