// SPDX-License-Identifier: MIT
// Pays many addresses in one transaction: the dev chain's replay of a compacted journal carries the
// native balances of thousands of accounts with it (one `hardhat_setBalance` each costs the node as
// much memory as a block). Compiled like DevToken (solc, optimizer 200 runs, paris) into
// src/platform/chain/contracts/Distributor.json.
pragma solidity ^0.8.20;

contract Distributor {
    function pay(address[] calldata to, uint256[] calldata amounts) external payable {
        for (uint256 i = 0; i < to.length; i++) {
            (bool ok, ) = to[i].call{value: amounts[i]}("");
            require(ok);
        }
    }
}
